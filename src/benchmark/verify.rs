//! Verification of read-back data with `-D v` (spec §7): a transfer's wrong bytes are
//! recorded inside the raw-read timer without formatting ([`find_mismatch`], called only
//! when a transfer is wrong) and turned into the C tool's lines plus our summary after
//! the file's phases ([`report_mismatches`]).

use crate::config::Api;
use crate::output::sink::Sink;
use crate::pattern::Pattern;

/// One verification finding of one transfer, recorded inside the raw-read timer
/// without formatting; turned into text after the timer stops.
#[derive(Clone, Copy)]
pub(super) struct Mismatch {
    /// The bytes expected at the first wrong places: that of the rank that wrote the part
    /// (rank + 1, wrapping), or the generated payload's (`--payload`).
    expected: [u8; 19],
    /// `--payload`: the rank that wrote the part (named in the summary line).
    writer: Option<u32>,
    dataset: u64,
    transfer: u64,
    count: u64,
    first_index: u64,
    got: [u8; 19],
}

/// The finding for transfer `transfer` of dataset `dataset` (both 0-based), for a
/// transfer whose bytes differ from `rank_byte`.
#[cold]
pub(super) fn find_mismatch(buf: &[u8], rank_byte: u8, dataset: u64, transfer: u64) -> Mismatch {
    find(buf, |_| rank_byte, None, dataset, transfer)
}

/// The finding for a transfer whose bytes differ from `expected` (`--payload`), written
/// by rank `writer`; otherwise as [`find_mismatch`].
#[cold]
pub(super) fn find_payload_mismatch(
    buf: &[u8],
    expected: &[u8],
    writer: u32,
    dataset: u64,
    transfer: u64,
) -> Mismatch {
    find(buf, |i| expected[i], Some(writer), dataset, transfer)
}

/// The bytes of `buf` that differ from `want(i)`, counted, the first 19 kept.
fn find(
    buf: &[u8],
    want: impl Fn(usize) -> u8,
    writer: Option<u32>,
    dataset: u64,
    transfer: u64,
) -> Mismatch {
    let mut m = Mismatch {
        expected: [0; 19],
        writer,
        dataset,
        transfer,
        count: 0,
        first_index: 0,
        got: [0; 19],
    };
    for (i, &b) in buf.iter().enumerate() {
        let w = want(i);
        if b != w {
            if m.count == 0 {
                m.first_index = i as u64;
            }
            if (m.count as usize) < m.got.len() {
                m.got[m.count as usize] = b;
                m.expected[m.count as usize] = w;
            }
            m.count += 1;
        }
    }
    m
}

/// The lines printed for one transfer with wrong bytes: the C tool's (spec §7), then our
/// summary with the offset of the first wrong byte.
fn mismatch_text(rank: u32, pat: &Pattern, path: &str, api: Api, m: &Mismatch) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let n = (m.count as usize).min(19);
    for (g, expected) in m.got.iter().zip(m.expected.iter()).take(n) {
        let _ = writeln!(
            s,
            "{rank}: read data error, expected ({expected}), got ({g})"
        );
    }
    if m.count >= 20 {
        let _ = writeln!(s, "{rank}: ...total read data errors={}", m.count);
    }
    let in_dset = pat.dataset_offset_of(m.transfer, m.first_index);
    let place = match api {
        Api::Phdf5 => format!("Dataset_{}, element offset {in_dset}", m.dataset + 1),
        _ => format!(
            "dataset {}, file offset {}",
            m.dataset + 1,
            m.dataset * pat.dataset_bytes() + in_dset
        ),
    };
    let by = m
        .writer
        .map_or_else(String::new, |w| format!(" (written by rank {w})"));
    let _ = writeln!(
        s,
        "rank {rank}: verification failed in {path}, {place}: {} of {} bytes wrong in transfer {}{by}",
        m.count,
        pat.buf_bytes(),
        m.transfer
    );
    s
}

/// Print the verification findings of one file of `rank` to `out` and empty
/// `mismatches`; returns the number of wrong bytes.
pub(super) fn report_mismatches(
    rank: u32,
    pat: &Pattern,
    path: &str,
    api: Api,
    mismatches: &mut Vec<Mismatch>,
    out: &Sink,
) -> u64 {
    if mismatches.is_empty() {
        return 0;
    }
    let mut s = String::new();
    let mut wrong = 0;
    for m in mismatches.iter() {
        s.push_str(&mismatch_text(rank, pat, path, api, m));
        wrong += m.count;
    }
    mismatches.clear();
    out.write(&s);
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern1D;

    fn pat(inter: bool) -> Pattern {
        Pattern::D1(Pattern1D {
            bpp: 64,
            buf: 16,
            blk: 4,
            nprocs: 3,
            rank: 1,
            interleaved: inter,
        })
    }

    #[test]
    fn mismatch_found_and_counted() {
        let mut buf = vec![2u8; 16];
        buf[5] = 7;
        buf[9] = 0;
        let m = find_mismatch(&buf, 2, 1, 3);
        assert_eq!(
            (m.count, m.first_index, m.dataset, m.transfer),
            (2, 5, 1, 3)
        );
        assert_eq!(&m.got[..2], &[7, 0]);
    }

    #[test]
    fn mismatch_lines_name_file_dataset_and_offset() {
        let mut buf = vec![2u8; 16];
        buf[5] = 7;
        let m = find_mismatch(&buf, 2, 1, 3);
        // contiguous: dataset 2 starts at 192; rank 1 region at 64; transfer 3 at +48; byte 5
        let t = mismatch_text(1, &pat(false), "#pio_tmp_1.posix", Api::Posix, &m);
        assert_eq!(
            t,
            "1: read data error, expected (2), got (7)\n\
             rank 1: verification failed in #pio_tmp_1.posix, dataset 2, file offset 309: 1 of 16 bytes wrong in transfer 3\n"
        );
        // interleaved: byte 5 is block 1 of transfer 3: 4 + (48 + 4) * 3 + 1 = 161
        let t = mismatch_text(1, &pat(true), "f.h5", Api::Phdf5, &m);
        assert!(
            t.ends_with(
                "in f.h5, Dataset_2, element offset 161: 1 of 16 bytes wrong in transfer 3\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn payload_mismatch_names_the_expected_byte_and_the_writer() {
        let want: Vec<u8> = (0..16).collect();
        let mut buf = want.clone();
        buf[5] = 99;
        let m = find_payload_mismatch(&buf, &want, 2, 1, 3);
        let t = mismatch_text(1, &pat(false), "#pio_tmp_1.posix", Api::Posix, &m);
        assert_eq!(
            t,
            "1: read data error, expected (5), got (99)\n\
             rank 1: verification failed in #pio_tmp_1.posix, dataset 2, file offset 309: 1 of 16 bytes wrong in transfer 3 (written by rank 2)\n"
        );
    }

    #[test]
    fn many_mismatches_print_19_lines_and_a_total() {
        let buf = vec![9u8; 16 * 4];
        let p = Pattern::D1(Pattern1D {
            bpp: 256,
            buf: 64,
            blk: 4,
            nprocs: 2,
            rank: 0,
            interleaved: false,
        });
        let m = find_mismatch(&buf, 1, 0, 0);
        let t = mismatch_text(0, &p, "x", Api::Mpiio, &m);
        assert_eq!(
            t.lines()
                .filter(|l| l.contains("read data error, expected (1), got (9)"))
                .count(),
            19
        );
        assert!(t.contains("0: ...total read data errors=64\n"));
    }
}
