# Reads valgrind memcheck logs (--leak-check=full --show-leak-kinds=definite) and sorts
# the reports by their stack:
#   LEAK ...   a "definitely lost" block whose allocation stack has a frame of
#              libh5perf: a C API function (h5perf_*), or Rust code of the h5perf crate
#              (h5perf::..., mangled _ZN6h5perf...), or the capi module
#   ERROR ...  any other memcheck error (invalid read/write/free, use of uninitialised
#              values, bad syscall parameter, ...) with such a frame in its stack
#   other      reports without such a frame: MPI's, HDF5's or the C runtime's own
#              allocations (made below MPI_Init, MPI_Finalize, dlopen, ...); counted
# Only function names are matched, never file paths (the scratch directory's name
# contains "h5perf").
function flush_record(   i, ours, fn, w) {
    if (!inrec) return
    ours = 0
    for (i = 1; i <= n; i++) {
        fn = frame[i]
        sub(/^(at|by) 0x[0-9A-Fa-f]+: /, "", fn)
        sub(/ \((in )?[^()]*\)$/, "", fn)
        if (fn ~ /^h5perf_/ || fn ~ /(^|[^A-Za-z0-9_])h5perf::/ || fn ~ /_ZN6h5perf/ || fn ~ /capi/)
            ours = 1
    }
    if (ours) {
        if (kind == "leak") leaks++; else errors++
        print (kind == "leak" ? "LEAK " : "ERROR ") head
        for (i = 1; i <= n; i++) print (kind == "leak" ? "LEAK   " : "ERROR   ") frame[i]
    } else if (kind == "leak") {
        other_leaks++
        split(head, w, " "); gsub(/,/, "", w[1]); other_bytes += w[1]
    } else {
        other_errors++
    }
    inrec = 0; n = 0
}
# the first line of a report: "==PID== " then text at column 0 (frames are indented)
/^==[0-9]+== [^ ]/ {
    line = $0; sub(/^==[0-9]+== /, "", line)
    if (line ~ /are definitely lost in loss record/) {
        flush_record(); inrec = 1; n = 0; kind = "leak"; head = line; next
    }
    if (line ~ /^(Invalid (read|write|free)|Conditional jump|Use of uninitialised|Syscall param|Mismatched free|Source and destination overlap|Argument .* of function .* has a fishy)/) {
        flush_record(); inrec = 1; n = 0; kind = "error"; head = line; next
    }
}
inrec && /^==[0-9]+== *$/ { flush_record(); next }
inrec && /^==[0-9]+== +(at|by) 0x[0-9A-Fa-f]+:/ { line = $0; sub(/^==[0-9]+== +/, "", line); frame[++n] = line; next }
# "Address ... is N bytes inside a block of size M alloc'd": the allocation stack of
# an invalid access belongs to the same report
inrec && /^==[0-9]+== +Address 0x/ { next }
/definitely lost:/ { s = $0; sub(/^==[0-9]+== +/, "", s); summary = summary "valgrind LEAK SUMMARY: " s "\n" }
/ERROR SUMMARY:/ { s = $0; sub(/^==[0-9]+== /, "", s); summary = summary "valgrind " s "\n" }
END {
    flush_record()
    printf "%s", summary
    printf "valgrind through libh5perf: %d definitely lost blocks, %d other errors\n", leaks + 0, errors + 0
    printf "valgrind elsewhere (MPI, HDF5, runtime): %d definitely lost records (%d bytes, direct and indirect), %d other errors\n", other_leaks + 0, other_bytes + 0, other_errors + 0
}
