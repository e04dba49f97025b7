#!/usr/bin/env python3
"""libh5perf.so from Python with ctypes, under mpiexec (c_tests/run python PREFIX).

    mpiexec -n NP python3 c_tests/ctypes_test.py PREFIX/lib/libh5perf.so.N

Loads the installed shared library by its soname file, starts MPI through the MPI library
that libh5perf.so itself names (MPI_Init, found through the library's handle), runs one
configuration through the C API (h5perf_config_new and setters, h5perf_run on
MPI_COMM_WORLD) and checks its records: their number, the API and process count of each,
bytes = processes x bytes per process, min <= avg <= max, throughput = bytes / time. The
run's "hdf5_version" is compared with what the HDF5 library loaded into the process
reports itself (H5get_libversion), and nothing may be left in the working directory.
Prints PASS/FAIL lines like the C tests (check.h); exit status 1 when a check failed.
MPI_COMM_WORLD is the address of ompi_mpi_comm_world in Open MPI and the integer handle
0x44000000 in MPICH (both from their mpi.h).
"""

import ctypes
import os
import sys

MIB = 1 << 20
API_POSIX, API_MPIIO, API_PHDF5 = 1, 2, 4
failed = 0
rank, size = 0, 1


def check(ok, name, why=""):
    global failed
    if ok:
        print(f"PASS ctypes/{name} [rank {rank}/{size}]", flush=True)
    else:
        failed += 1
        print(f"FAIL ctypes/{name} [rank {rank}/{size}]: {why}", flush=True)
    return ok


class Phase(ctypes.Structure):
    _fields_ = [(n, ctypes.c_double) for n in
                ("min_time", "avg_time", "max_time", "max_mibps", "avg_mibps", "min_mibps")]


class Record(ctypes.Structure):
    """h5perf_record of include/h5perf.h."""
    _fields_ = [
        ("nprocs", ctypes.c_int32), ("api", ctypes.c_uint32),
        ("xfer_size", ctypes.c_uint64), ("buf_bytes", ctypes.c_uint64),
        ("bytes", ctypes.c_uint64), ("iterations", ctypes.c_int32),
        ("has_read", ctypes.c_int32),
        ("raw_write", Phase), ("write", Phase), ("write_open_close", Phase),
        ("raw_read", Phase), ("read", Phase), ("read_open_close", Phase),
        ("write_open", ctypes.c_double * 3), ("write_close", ctypes.c_double * 3),
        ("read_open", ctypes.c_double * 3), ("read_close", ctypes.c_double * 3),
    ]


def main():
    global rank, size
    path = sys.argv[1]
    before = sorted(os.listdir("."))
    # RTLD_GLOBAL: Open MPI's components, loaded later by MPI_Init, find libmpi's symbols
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    vp, i32, u32, u64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint64

    if lib.MPI_Init(None, None) != 0:
        print("FAIL ctypes/mpi_init: MPI_Init failed", flush=True)
        return 1
    try:
        world = ctypes.c_void_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "ompi_mpi_comm_world")))
        comm_t = vp
        flavour = "Open MPI"
    except ValueError:
        world = ctypes.c_int(0x44000000)
        comm_t = i32
        flavour = "MPICH"
    r, s = ctypes.c_int(), ctypes.c_int()
    lib.MPI_Comm_rank.argtypes = [comm_t, ctypes.POINTER(ctypes.c_int)]
    lib.MPI_Comm_size.argtypes = [comm_t, ctypes.POINTER(ctypes.c_int)]
    lib.MPI_Barrier.argtypes = [comm_t]
    lib.MPI_Comm_rank(world, ctypes.byref(r))
    lib.MPI_Comm_size(world, ctypes.byref(s))
    rank, size = r.value, s.value
    check(0 <= rank < size, "mpi_init", f"{flavour}: rank {rank} of {size}")

    lib.h5perf_version.restype = ctypes.c_char_p
    lib.h5perf_last_error.restype = ctypes.c_char_p
    lib.h5perf_config_new.restype = vp
    lib.h5perf_config_free.argtypes = [vp]
    for name, t in (("apis", u32), ("num_bytes", u64), ("min_xfer_size", u64),
                    ("max_xfer_size", u64), ("block_size", u64)):
        f = getattr(lib, f"h5perf_config_set_{name}")
        f.argtypes, f.restype = [vp, t], i32
    lib.h5perf_run.argtypes = [vp, comm_t, ctypes.POINTER(vp)]
    lib.h5perf_run.restype = i32
    lib.h5perf_results_count.argtypes = [vp]
    lib.h5perf_results_count.restype = ctypes.c_size_t
    lib.h5perf_results_get.argtypes = [vp, ctypes.c_size_t]
    lib.h5perf_results_get.restype = ctypes.POINTER(Record)
    lib.h5perf_results_meta.argtypes = [vp, ctypes.c_char_p]
    lib.h5perf_results_meta.restype = ctypes.c_char_p
    lib.h5perf_results_free.argtypes = [vp]

    version = lib.h5perf_version().decode()
    check(version.startswith("h5perf "), "version", version)

    # -A mpiio,phdf5 -e 64K -x 16K -X 32K -B 16K: per process step 2 transfer sizes x 2 APIs
    per_rank = 64 * 1024
    cfg = lib.h5perf_config_new()
    check(cfg is not None, "config_new", "h5perf_config_new returned NULL")
    rcs = [lib.h5perf_config_set_apis(cfg, API_MPIIO | API_PHDF5),
           lib.h5perf_config_set_num_bytes(cfg, per_rank),
           lib.h5perf_config_set_min_xfer_size(cfg, 16 * 1024),
           lib.h5perf_config_set_max_xfer_size(cfg, 32 * 1024),
           lib.h5perf_config_set_block_size(cfg, 16 * 1024)]
    check(rcs == [0] * 5, "setters", f"return codes {rcs}: {lib.h5perf_last_error().decode()}")
    res = vp()
    rc = lib.h5perf_run(cfg, world, ctypes.byref(res))
    check(rc == 0, "run.rc", f"h5perf_run = {rc}: {lib.h5perf_last_error().decode()}")

    steps = []
    np = size
    while np >= 1:
        steps.append(np)
        np //= 2
    if rank == 0 and rc == 0:
        n = lib.h5perf_results_count(res)
        check(n == len(steps) * 2 * 2, "run.count",
              f"{n} records, expected {len(steps)} process steps x 2 transfer sizes x 2 APIs")
        seen = []
        for i in range(n):
            rec = lib.h5perf_results_get(res, i).contents
            seen.append((rec.nprocs, rec.api, rec.xfer_size))
            w = rec.write
            ok = (rec.bytes == rec.nprocs * per_rank and rec.iterations == 1 and rec.has_read == 1
                  and 0 < w.min_time <= w.avg_time <= w.max_time
                  and abs(w.max_mibps - rec.bytes / MIB / w.min_time) <= 1e-9 * w.max_mibps
                  and 0 < rec.read.min_time)
            check(ok, f"record.{i}",
                  f"procs {rec.nprocs} api {rec.api} xfer {rec.xfer_size}: bytes {rec.bytes}, "
                  f"write {w.min_time}/{w.avg_time}/{w.max_time} s, {w.max_mibps} MiB/s")
        want = sorted((p, a, x) for p in steps for a in (API_MPIIO, API_PHDF5)
                      for x in (16 * 1024, 32 * 1024))
        check(sorted(seen) == want, "records.cover", f"records {sorted(seen)}, expected {want}")
    if rc == 0:
        # the HDF5 library in this process, asked directly
        a, b, c = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        lib.H5get_libversion(ctypes.byref(a), ctypes.byref(b), ctypes.byref(c))
        hdf5 = f"{a.value}.{b.value}.{c.value}"
        meta = (lib.h5perf_results_meta(res, b"hdf5_version") or b"").decode()
        check(meta == hdf5, "meta.hdf5_version",
              f"results say HDF5 {meta!r}, the loaded library is {hdf5}")
        lib.h5perf_results_free(res)
    lib.h5perf_config_free(cfg)

    lib.MPI_Barrier(world)
    after = sorted(os.listdir("."))
    check(after == before, "no_files_left", f"before {before}, after {after}")
    lib.MPI_Finalize()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
