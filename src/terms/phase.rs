//! The one table of what is measured (spec §8.1, §8.5).

use super::timer::Timer;

/// Write or read: one half of a file's I/O, of a record and of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The write phase of every file.
    Write,
    /// The read phase of every file (absent with `-w`).
    Read,
}

/// What is measured in one direction, in the report's block order (spec §8.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measures {
    /// The transfer loops only ("Raw Data Write").
    pub raw: Phase,
    /// The MPI time: never measured, always 0, printed only in the `-D 3` details.
    pub mpi: Timer,
    /// From after the open to after the data phase ("Write").
    pub fine: Phase,
    /// From after the pre-phase barrier to after the close ("Write Open-Close").
    pub gross: Phase,
    /// The open ("Write File Open").
    pub open: Timer,
    /// The close ("Write File Close").
    pub close: Timer,
    /// The sync before the close with `--fsync` ("Write File Sync"; write only).
    pub sync: Option<Timer>,
}

impl Direction {
    /// Both directions, in report order.
    pub const ALL: [Direction; 2] = [Direction::Write, Direction::Read];

    /// The phases and timers of this direction.
    pub const fn measures(self) -> Measures {
        match self {
            Direction::Write => Measures {
                raw: Phase::RawWrite,
                mpi: Timer::MpiWrite,
                fine: Phase::Write,
                gross: Phase::WriteOpenClose,
                open: Timer::WriteOpen,
                close: Timer::WriteClose,
                sync: Some(Timer::WriteSync),
            },
            Direction::Read => Measures {
                raw: Phase::RawRead,
                mpi: Timer::MpiRead,
                fine: Phase::Read,
                gross: Phase::ReadOpenClose,
                open: Timer::ReadOpen,
                close: Timer::ReadClose,
                sync: None,
            },
        }
    }
}

/// A measured phase of a record, in the order the text report prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// "Raw Data Write": only the transfer loops.
    RawWrite,
    /// "Write": open to close, without the open and the close.
    Write,
    /// "Write Open-Close".
    WriteOpenClose,
    /// "Raw Data Read" (includes verification with `-D v`).
    RawRead,
    /// "Read".
    Read,
    /// "Read Open-Close".
    ReadOpenClose,
}

impl Phase {
    /// All phases in report order.
    pub const ALL: [Phase; 6] = [
        Phase::RawWrite,
        Phase::Write,
        Phase::WriteOpenClose,
        Phase::RawRead,
        Phase::Read,
        Phase::ReadOpenClose,
    ];

    /// The phase table: direction, timer and machine-readable key of each phase.
    const fn entry(self) -> (Direction, Timer, &'static str) {
        match self {
            Phase::RawWrite => (Direction::Write, Timer::WriteRaw, "raw_write"),
            Phase::Write => (Direction::Write, Timer::WriteFine, "write"),
            Phase::WriteOpenClose => (Direction::Write, Timer::WriteGross, "write_open_close"),
            Phase::RawRead => (Direction::Read, Timer::ReadRaw, "raw_read"),
            Phase::Read => (Direction::Read, Timer::ReadFine, "read"),
            Phase::ReadOpenClose => (Direction::Read, Timer::ReadGross, "read_open_close"),
        }
    }

    /// The title the text report uses (`Raw Data Write`, `Write`, …): its timer's.
    pub const fn title(self) -> &'static str {
        self.timer().title()
    }

    /// A stable machine-readable name (`raw_write`, `write`, `write_open_close`, …).
    pub const fn key(self) -> &'static str {
        self.entry().2
    }

    /// The timer whose statistics the phase reports.
    pub const fn timer(self) -> Timer {
        self.entry().1
    }

    /// The direction of the phase.
    pub const fn direction(self) -> Direction {
        self.entry().0
    }

    /// Whether the phase reads (absent with `-w`).
    pub fn is_read(self) -> bool {
        self.direction() == Direction::Read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_and_directions_agree() {
        for d in Direction::ALL {
            let m = d.measures();
            for ph in [m.raw, m.fine, m.gross] {
                assert_eq!(ph.direction(), d);
            }
        }
        let all: Vec<Phase> = Direction::ALL
            .iter()
            .flat_map(|d| {
                let m = d.measures();
                [m.raw, m.fine, m.gross]
            })
            .collect();
        assert_eq!(all, Phase::ALL);
        // every timer has exactly one role
        let mut seen = [0; crate::measure::timer::COUNT];
        for d in Direction::ALL {
            let m = d.measures();
            for t in [
                m.raw.timer(),
                m.mpi,
                m.fine.timer(),
                m.gross.timer(),
                m.open,
                m.close,
            ]
            .into_iter()
            .chain(m.sync)
            {
                seen[t as usize] += 1;
            }
        }
        assert_eq!(seen, [1; crate::measure::timer::COUNT]);
    }

    #[test]
    fn titles_and_keys() {
        let t: Vec<(&str, &str)> = Phase::ALL.iter().map(|p| (p.title(), p.key())).collect();
        assert_eq!(
            t,
            [
                ("Raw Data Write", "raw_write"),
                ("Write", "write"),
                ("Write Open-Close", "write_open_close"),
                ("Raw Data Read", "raw_read"),
                ("Read", "read"),
                ("Read Open-Close", "read_open_close"),
            ]
        );
        let m = Direction::Read.measures();
        assert_eq!(
            [m.mpi.title(), m.open.title(), m.close.title()],
            ["MPI Read", "Read File Open", "Read File Close"]
        );
        assert_eq!(
            [
                m.open.detail_title(),
                m.close.detail_title(),
                m.fine.timer().detail_title()
            ],
            ["Read file open", "Read file close", "Read"]
        );
    }
}
