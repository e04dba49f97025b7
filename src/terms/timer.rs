//! The twelve timers of one benchmark iteration and their titles (spec §8.1, §8.2), and
//! the sync timer of `--fsync`: the names the engine, the records and the report share.

/// The timers, in the order they are reduced (spec §8.2, then the sync timer of
/// `--fsync`, which the C tool does not have). Values are seconds, accumulated over the
/// files (raw: over all datasets of all files) of one iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Timer {
    /// MPI write time: never measured by the reference, always 0 (spec §11.7).
    MpiWrite = 0,
    /// "Write": after the open to after the write phase (includes dataset creation).
    WriteFine,
    /// "Write Open-Close": after the pre-write barrier to after the close.
    WriteGross,
    /// "Raw Data Write": only the transfer loops.
    WriteRaw,
    /// "Write File Open": the open.
    WriteOpen,
    /// "Write File Close": the close.
    WriteClose,
    /// MPI read time: always 0.
    MpiRead,
    /// "Read".
    ReadFine,
    /// "Read Open-Close".
    ReadGross,
    /// "Raw Data Read" (includes verification, as in the reference).
    ReadRaw,
    /// "Read File Open".
    ReadOpen,
    /// "Read File Close".
    ReadClose,
    /// "Write File Sync" (`--fsync`): the sync before the close of each file, part of
    /// "Write" and "Write Open-Close"; 0 without `--fsync`.
    WriteSync,
}

impl Timer {
    /// The title the report prints the timer under (spec §8.1 "printed as", §8.5):
    /// `Raw Data Write`, `Write`, `Write Open-Close`, `Write File Open`, …, and
    /// `MPI Write`/`MPI Read` (in the `-D 3` details only).
    pub const fn title(self) -> &'static str {
        match self {
            Timer::MpiWrite => "MPI Write",
            Timer::WriteFine => "Write",
            Timer::WriteGross => "Write Open-Close",
            Timer::WriteRaw => "Raw Data Write",
            Timer::WriteOpen => "Write File Open",
            Timer::WriteClose => "Write File Close",
            Timer::MpiRead => "MPI Read",
            Timer::ReadFine => "Read",
            Timer::ReadGross => "Read Open-Close",
            Timer::ReadRaw => "Raw Data Read",
            Timer::ReadOpen => "Read File Open",
            Timer::ReadClose => "Read File Close",
            Timer::WriteSync => "Write File Sync",
        }
    }

    /// The title of the timer's `-D 3` detail block: [`Timer::title`], except that the
    /// open and close timers read `Write file open`, `Read file close`, … in lower case
    /// (spec Appendix A).
    pub const fn detail_title(self) -> &'static str {
        match self {
            Timer::WriteOpen => "Write file open",
            Timer::WriteClose => "Write file close",
            Timer::ReadOpen => "Read file open",
            Timer::ReadClose => "Read file close",
            Timer::WriteSync => "Write file sync",
            t => t.title(),
        }
    }
}

/// Number of timers.
pub const COUNT: usize = 13;
