//! The storage options (issue 13): what was asked ([`StorageOptions`]), the refused
//! combinations, what the run found ([`StorageFacts`]) and how reports show them.

/// `--reorder[=SHIFT]`: in the read phase rank r reads the part that rank
/// `(r + SHIFT) mod N` wrote (IOR's `-C`/`-Q`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reorder {
    /// `--reorder`: SHIFT is the number of ranks on the node of rank 0, or 1 on one node.
    ByNode,
    /// `--reorder=SHIFT`, SHIFT ≥ 1.
    Shift(u64),
}

/// The storage options as given. The default (nothing given) is the C tool's run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StorageOptions {
    /// `--fsync`: sync each file written before closing it.
    pub fsync: bool,
    /// `--direct`: POSIX data files opened with `O_DIRECT` (POSIX only).
    pub direct: bool,
    /// `--reorder[=SHIFT]`.
    pub reorder: Option<Reorder>,
    /// `--read-only`: no write phase; read (and keep) the files of an earlier run.
    pub read_only: bool,
    /// `--drop-caches`: drop the page cache of every node before each read phase.
    pub drop_caches: bool,
}

/// What the run found out about the machine for the storage options, before any I/O
/// (`benchmark::storage::check_up_front`); the parameter block reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageFacts {
    /// `--direct`: the alignment every POSIX call must respect, bytes, and where it
    /// comes from (`statx STATX_DIOALIGN`, ...).
    pub direct_align: Option<(u64, String)>,
    /// `--reorder`: whether all processes of the run share one node (and so one page
    /// cache).
    pub one_node: bool,
    /// `--reorder`: processes on the node of rank 0.
    pub ranks_on_node0: u32,
}

impl StorageOptions {
    /// True when at least one storage option was given.
    pub fn any(&self) -> bool {
        *self != StorageOptions::default()
    }

    /// The combinations refused before anything runs, one message each (without
    /// `h5perf: `).
    pub fn problems(
        &self,
        non_posix: &[&str],
        write_only: bool,
        proc_counts: &[u32],
    ) -> Vec<String> {
        let mut out = Vec::new();
        if write_only {
            if self.read_only {
                out.push(
                    "--read-only runs the read phase only and -w/--write-only the write phase \
                     only: give one of them"
                        .to_string(),
                );
            }
            if self.reorder.is_some() {
                out.push(
                    "--reorder changes what each rank reads, and -w/--write-only reads nothing"
                        .to_string(),
                );
            }
            if self.drop_caches {
                out.push(
                    "--drop-caches drops the page cache before each read phase, and \
                     -w/--write-only has none"
                        .to_string(),
                );
            }
        }
        if self.fsync && self.read_only {
            out.push(
                "--fsync syncs what the write phase wrote, and --read-only has no write phase"
                    .to_string(),
            );
        }
        if self.direct {
            let others = non_posix;
            if !others.is_empty() {
                out.push(format!(
                    "--direct applies to POSIX only (-A posix), and {} selected: MPI-IO has no \
                     portable direct I/O. Some MPI-IO drivers honour hints for it (ROMIO's \
                     Lustre and XFS drivers: direct_read=true, direct_write=true), which \
                     HDF5_MPI_INFO=\"direct_read=true;direct_write=true\" passes to every MPI-IO \
                     and PHDF5 open",
                    if others.len() == 1 {
                        format!("{} is", others[0])
                    } else {
                        format!("{} are", others.join(" and "))
                    }
                ));
            }
        }
        if let Some(r) = self.reorder.filter(|_| !write_only) {
            if proc_counts.iter().all(|&n| n < 2) {
                out.push(
                    "--reorder needs at least 2 processes, a rank to read another's part \
                     (the run has 1; see -p/-P)"
                        .to_string(),
                );
            } else if let Reorder::Shift(s) = r {
                let own: Vec<String> = proc_counts
                    .iter()
                    .filter(|&&n| n >= 2 && s % u64::from(n) == 0)
                    .map(u32::to_string)
                    .collect();
                if !own.is_empty() {
                    out.push(format!(
                        "--reorder={s}: with {} processes every rank would read its own part \
                         ({s} is a multiple of the process count); choose a shift that is not",
                        own.join(", ")
                    ));
                }
            }
        }
        out
    }

    /// The shift of `--reorder` for `n` processes of which `on_node0` share the node of
    /// rank 0 (all on one node: `on_node0 == n`), reduced modulo `n`; 0 without
    /// `--reorder` or with one process.
    pub fn read_shift(&self, n: u32, on_node0: u32) -> u64 {
        let n64 = u64::from(n);
        let s = match self.reorder {
            None => return 0,
            Some(Reorder::Shift(s)) => s,
            Some(Reorder::ByNode) if on_node0 < n => u64::from(on_node0),
            Some(Reorder::ByNode) => 1,
        };
        if n64 == 0 {
            0
        } else {
            s % n64
        }
    }

    /// Whether, with `--reorder`, each of the first `n` ranks (`rank_hosts[r]` is world
    /// rank r's host; a step runs on the first `n`) reads the part a rank on another host
    /// wrote: then the reading node's page cache holds none of what it reads (the reason
    /// of IOR's `-C`, "reorderTasks"). False without `--reorder`, with fewer hosts known
    /// than `n`, or when the shift (as the run computes it, [`Self::read_shift`]) leaves
    /// some rank reading a part written on its own host.
    pub fn reads_cross_nodes(&self, n: u32, rank_hosts: &[String]) -> bool {
        let hosts = match rank_hosts.get(..n as usize) {
            Some(h) if !h.is_empty() => h,
            _ => return false,
        };
        let on_node0 = hosts.iter().filter(|h| **h == hosts[0]).count() as u32;
        let shift = self.read_shift(n, on_node0) as usize;
        shift != 0 && (0..hosts.len()).all(|r| hosts[r] != hosts[(r + shift) % hosts.len()])
    }

    /// The parameter-block lines (without `rank R: `), one per option given, printed
    /// before `Env HDF5_PARAPREFIX=`.
    pub fn report_lines(&self, facts: &StorageFacts) -> Vec<String> {
        let mut v = Vec::new();
        if self.read_only {
            v.push(
                "Read-only=on (no write phase: the files of an earlier run are read and kept)"
                    .to_string(),
            );
        }
        if self.fsync {
            v.push(
                "Sync before close=on (POSIX fsync, MPI_File_sync, PHDF5 H5Fflush; counted in \
                 Write and Write Open-Close)"
                    .to_string(),
            );
        }
        if self.direct {
            let how = match &facts.direct_align {
                Some((bytes, source)) => format!("; alignment {bytes} bytes, {source}"),
                None => String::new(),
            };
            v.push(format!("Direct I/O=on (POSIX O_DIRECT{how})"));
        }
        match self.reorder {
            None => {}
            Some(Reorder::Shift(s)) => v.push(format!("Read reorder=shift {s}")),
            Some(Reorder::ByNode) if facts.one_node => v.push(
                "Read reorder=shift 1 (all processes on one node: they share its page cache, \
                 so reads may still come from memory)"
                    .to_string(),
            ),
            Some(Reorder::ByNode) => v.push(format!(
                "Read reorder=shift by node ({} processes on the node of rank 0)",
                facts.ranks_on_node0
            )),
        }
        if self.drop_caches {
            v.push(
                "Drop caches=on (before each read phase: every rank fsyncs its data files, \
                 then one rank per node writes 3 > /proc/sys/vm/drop_caches)"
                    .to_string(),
            );
        }
        v
    }

    /// The names of the results-file fields of the storage options, in output order
    /// (written only when [`StorageOptions::any`]).
    pub const FIELDS: [&'static str; 5] =
        ["fsync", "direct", "reorder", "read_only", "drop_caches"];

    /// The values of [`StorageOptions::FIELDS`]: `on`/`off`, and for `reorder` `off`,
    /// `node` (the default shift) or the shift.
    pub fn field_values(&self) -> [String; 5] {
        let on = |b: bool| if b { "on" } else { "off" }.to_string();
        let reorder = match self.reorder {
            None => "off".to_string(),
            Some(Reorder::ByNode) => "node".to_string(),
            Some(Reorder::Shift(s)) => s.to_string(),
        };
        [
            on(self.fsync),
            on(self.direct),
            reorder,
            on(self.read_only),
            on(self.drop_caches),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[&str] = &["mpiio", "phdf5"];
    const POSIX: &[&str] = &[];

    #[test]
    fn reorder_reads_cross_nodes_only_when_every_rank_reads_another_hosts_part() {
        let hosts: Vec<String> = ["a", "a", "b", "b"].map(String::from).to_vec();
        let by_node = with(|s| s.reorder = Some(Reorder::ByNode));
        // 4 ranks on 2 nodes: shift 2, every rank reads the other node's part
        assert!(by_node.reads_cross_nodes(4, &hosts));
        // the step of 2 processes runs on node a alone: shift 1 stays on a
        assert!(!by_node.reads_cross_nodes(2, &hosts));
        assert!(!by_node.reads_cross_nodes(1, &hosts));
        // an explicit shift of 1 on block placement: rank 0 reads rank 1's part, both on a
        let one = with(|s| s.reorder = Some(Reorder::Shift(1)));
        assert!(!one.reads_cross_nodes(4, &hosts));
        // round-robin placement: shift 1 crosses
        let rr: Vec<String> = ["a", "b", "a", "b"].map(String::from).to_vec();
        assert!(one.reads_cross_nodes(4, &rr));
        // without --reorder, or fewer hosts known than ranks
        assert!(!StorageOptions::default().reads_cross_nodes(4, &hosts));
        assert!(!by_node.reads_cross_nodes(4, &hosts[..3]));
    }

    fn with(f: impl FnOnce(&mut StorageOptions)) -> StorageOptions {
        let mut s = StorageOptions::default();
        f(&mut s);
        s
    }

    #[test]
    fn nothing_given_changes_nothing() {
        let s = StorageOptions::default();
        assert!(!s.any());
        assert!(s.problems(ALL, true, &[1]).is_empty());
        assert!(s.report_lines(&StorageFacts::default()).is_empty());
        assert_eq!(s.read_shift(4, 4), 0);
    }

    #[test]
    fn refusals() {
        let p = |s: StorageOptions, apis: &[&str], w, n: &[u32]| s.problems(apis, w, n);
        let ro = with(|s| s.read_only = true);
        assert!(p(ro, ALL, true, &[2])[0].contains("--read-only runs the read phase only"));
        assert!(p(ro, ALL, false, &[2]).is_empty());
        let fs = with(|s| {
            s.fsync = true;
            s.read_only = true
        });
        assert_eq!(p(fs, ALL, false, &[2]).len(), 1);
        assert!(p(fs, ALL, false, &[2])[0].starts_with("--fsync syncs"));
        let dc = with(|s| s.drop_caches = true);
        assert!(p(dc, ALL, true, &[2])[0].contains("-w/--write-only has none"));
        let d = with(|s| s.direct = true);
        assert!(p(d, POSIX, false, &[2]).is_empty());
        let m = p(d, ALL, false, &[2]);
        assert_eq!(m.len(), 1);
        assert!(m[0].contains("mpiio and phdf5 are selected"), "{}", m[0]);
        assert!(m[0].contains("HDF5_MPI_INFO=\"direct_read=true;direct_write=true\""));
        let m = p(d, &["phdf5"], false, &[2]);
        assert!(m[0].contains("phdf5 is selected"), "{}", m[0]);
        let r = with(|s| s.reorder = Some(Reorder::ByNode));
        assert!(p(r, ALL, false, &[4, 2, 1]).is_empty());
        assert!(p(r, ALL, false, &[1])[0].contains("needs at least 2 processes"));
        assert!(p(r, ALL, true, &[4])[0].contains("reads nothing"));
        let r3 = with(|s| s.reorder = Some(Reorder::Shift(3)));
        assert!(p(r3, ALL, false, &[4, 2, 1]).is_empty());
        let r4 = with(|s| s.reorder = Some(Reorder::Shift(4)));
        let m = p(r4, ALL, false, &[4, 2, 1]);
        assert_eq!(
            m,
            vec![
                "--reorder=4: with 4, 2 processes every rank would read its own part (4 is a \
                 multiple of the process count); choose a shift that is not"
            ]
        );
    }

    #[test]
    fn shifts() {
        let by_node = with(|s| s.reorder = Some(Reorder::ByNode));
        // one node: 1; two nodes of 4: 4; reduced modulo n
        assert_eq!(by_node.read_shift(4, 4), 1);
        assert_eq!(by_node.read_shift(8, 4), 4);
        assert_eq!(by_node.read_shift(1, 1), 0);
        let s5 = with(|s| s.reorder = Some(Reorder::Shift(5)));
        assert_eq!(s5.read_shift(4, 4), 1);
        assert_eq!(s5.read_shift(8, 2), 5);
        assert_eq!(s5.read_shift(1, 1), 0);
    }

    #[test]
    fn report_lines_one_per_option() {
        let all = StorageOptions {
            fsync: true,
            direct: true,
            reorder: Some(Reorder::ByNode),
            read_only: false,
            drop_caches: true,
        };
        let facts = StorageFacts {
            direct_align: Some((512, "statx STATX_DIOALIGN".to_string())),
            one_node: true,
            ranks_on_node0: 2,
        };
        let l = all.report_lines(&facts);
        assert_eq!(l.len(), 4);
        assert!(l[0].starts_with("Sync before close=on"));
        assert_eq!(
            l[1],
            "Direct I/O=on (POSIX O_DIRECT; alignment 512 bytes, statx STATX_DIOALIGN)"
        );
        assert!(l[2].starts_with("Read reorder=shift 1 (all processes on one node"));
        assert!(l[3].starts_with("Drop caches=on"));
        let multi = StorageFacts {
            one_node: false,
            ranks_on_node0: 4,
            ..facts
        };
        assert_eq!(
            all.report_lines(&multi)[2],
            "Read reorder=shift by node (4 processes on the node of rank 0)"
        );
        assert_eq!(
            with(|s| s.reorder = Some(Reorder::Shift(3))).report_lines(&multi),
            vec!["Read reorder=shift 3"]
        );
        assert_eq!(
            all.field_values(),
            ["on", "on", "node", "off", "on"].map(String::from)
        );
    }
}
