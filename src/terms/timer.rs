//! The timers of one iteration and their titles (spec §8.1, §8.2), with `--fsync`'s.

/// Declares [`Timer`] with its report title (spec §8.1, §8.5) and `-D 3` title (App. A).
macro_rules! timers {
    ($($(#[$doc:meta])* $v:ident: $title:literal, $detail:literal;)*) => {
        /// The timers, in reduction order (spec §8.2, then `--fsync`'s); seconds per iteration.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[repr(usize)]
        pub enum Timer {
            $(#[doc = concat!("\"", $title, "\".")] $(#[$doc])* $v,)*
        }

        impl Timer {
            /// The title the report prints the timer under (spec §8.1, §8.5).
            pub const fn title(self) -> &'static str {
                match self {
                    $(Timer::$v => $title,)*
                }
            }

            /// The title of the timer's `-D 3` detail block (spec Appendix A).
            pub const fn detail_title(self) -> &'static str {
                match self {
                    $(Timer::$v => $detail,)*
                }
            }
        }

        /// Number of timers.
        pub const COUNT: usize = [$(Timer::$v),*].len();
    };
}

timers! {
    /// Never measured by the reference: always 0 (spec §11.7).
    MpiWrite: "MPI Write", "MPI Write";
    /// After the open to after the write phase (includes dataset creation).
    WriteFine: "Write", "Write";
    /// After the pre-write barrier to after the close.
    WriteGross: "Write Open-Close", "Write Open-Close";
    /// Only the transfer loops.
    WriteRaw: "Raw Data Write", "Raw Data Write";
    WriteOpen: "Write File Open", "Write file open";
    WriteClose: "Write File Close", "Write file close";
    /// Always 0.
    MpiRead: "MPI Read", "MPI Read";
    ReadFine: "Read", "Read";
    ReadGross: "Read Open-Close", "Read Open-Close";
    /// Includes verification, as in the reference.
    ReadRaw: "Raw Data Read", "Raw Data Read";
    ReadOpen: "Read File Open", "Read file open";
    ReadClose: "Read File Close", "Read file close";
    /// The sync before each file's close with `--fsync`; 0 without it.
    WriteSync: "Write File Sync", "Write file sync";
}
