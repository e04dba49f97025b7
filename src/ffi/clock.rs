//! The clock of `--latency` (issue 31): one read before and one after every transfer call.
//!
//! Which clock, and why. On x86-64 the time-stamp counter (`rdtsc`): one instruction
//! (about 20–40 cycles on current cores), resolution one cycle (< 1 ns), no system call,
//! no memory access. `clock_gettime(CLOCK_MONOTONIC)` through the vDSO reads the same
//! counter but adds the C library's wrapper and the kernel's sequence-lock and scaling,
//! about 50–70 instructions a read (callgrind), more than the whole 4 KiB POSIX loop
//! spends (28, `make bench-instr`); `MPI_Wtime` is `clock_gettime` (Open MPI, MPICH)
//! plus a conversion to seconds in a double. The counter is used only when the kernel
//! itself trusts it: Linux's current clock source is `tsc`
//! (`/sys/devices/system/clocksource/clocksource0/current_clocksource`), which it keeps
//! only for an invariant counter (constant rate through frequency and sleep states)
//! that it found synchronised across all CPUs at boot and since (it switches to `hpet`
//! or `acpi_pm` and marks the counter unstable otherwise); so a process that moves to
//! another core between the two reads still measures the interval. Elsewhere (another
//! architecture, another clock source) `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds
//! is read instead ([`Monotonic`]): correct everywhere, dearer per read.
//! Ticks are converted to nanoseconds after the phase, outside every timer
//! ([`ns_per_tick`]), against `CLOCK_MONOTONIC` over the time since the first use.

use std::sync::OnceLock;

/// A clock read on the `--latency` path: [`Clock::now`] in the clock's ticks.
pub trait Clock {
    /// The clock now, in ticks ([`ns_per_tick`] converts).
    fn now() -> u64;
}

/// The time-stamp counter (`rdtsc`) on x86-64; [`Monotonic`] elsewhere.
pub struct Tsc;

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds (POSIX.1-2008).
pub struct Monotonic;

impl Clock for Tsc {
    #[inline(always)]
    fn now() -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: rdtsc has no preconditions (x86-64 always has it); it reads a register.
            unsafe { core::arch::x86_64::_rdtsc() }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Monotonic::now()
        }
    }
}

impl Clock for Monotonic {
    #[inline(always)]
    fn now() -> u64 {
        monotonic_ns()
    }
}

/// `clock_gettime(CLOCK_MONOTONIC)` in nanoseconds; 0 if the call fails (it cannot for
/// this clock on Linux: the clock id is valid and the pointer ours).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a live timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(ts.tv_nsec).unwrap_or(0)
}

/// Which clock `--latency` reads on this machine (see the module's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// [`Tsc`]: x86-64 and the kernel's clock source is `tsc`.
    Tsc,
    /// [`Monotonic`]: anywhere else.
    Monotonic,
}

impl ClockKind {
    /// The clock of this machine, decided once per process.
    pub fn here() -> ClockKind {
        static KIND: OnceLock<ClockKind> = OnceLock::new();
        *KIND.get_or_init(|| {
            let src = std::fs::read_to_string(
                "/sys/devices/system/clocksource/clocksource0/current_clocksource",
            )
            .unwrap_or_default();
            if cfg!(target_arch = "x86_64") && src.trim() == "tsc" {
                ClockKind::Tsc
            } else {
                ClockKind::Monotonic
            }
        })
    }

    /// The clock's name for the report: `tsc` or `clock_gettime(CLOCK_MONOTONIC)`.
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Tsc => "tsc",
            ClockKind::Monotonic => "clock_gettime(CLOCK_MONOTONIC)",
        }
    }
}

/// The first pair of readings (ticks, monotonic ns) of [`ns_per_tick`].
static ANCHOR: OnceLock<(u64, u64)> = OnceLock::new();

/// Start the calibration of [`ns_per_tick`] (the first call counts; later calls nothing).
pub fn anchor() {
    ANCHOR.get_or_init(reading);
}

/// Both clocks at one instant, (ticks, monotonic ns): the monotonic clock read between
/// two reads of the counter, the pair with the closest counter reads of up to 64 tries
/// (at once when they are within 20,000 ticks, some µs), the counter's midpoint. A
/// preemption between two plain reads skewed the rate by the time the process was away
/// (a call of 430 µs measured in a raw phase of 225 µs, CI at a load of 4).
fn reading() -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..64 {
        let a = Tsc::now();
        let n = monotonic_ns();
        let w = Tsc::now().saturating_sub(a);
        if w < best.0 {
            best = (w, a + w / 2, n);
        }
        if w < 20_000 {
            break;
        }
    }
    (best.1, best.2)
}

/// Nanoseconds per tick of `kind`: 1 for [`ClockKind::Monotonic`]; for
/// [`ClockKind::Tsc`] the monotonic nanoseconds over the counter's ticks since
/// [`anchor`] (the first call, or this one). When less than 10 ms have passed, it
/// waits (busy) until they have, so the two readings (each a few µs wide at
/// most) err by less than 0.1 %. Never in a timer.
pub fn ns_per_tick(kind: ClockKind) -> f64 {
    if kind == ClockKind::Monotonic {
        return 1.0;
    }
    anchor();
    let (t0, n0) = *ANCHOR.get_or_init(reading);
    loop {
        let (t1, n1) = reading();
        if n1.saturating_sub(n0) >= 10_000_000 && t1 > t0 {
            return (n1 - n0) as f64 / (t1 - t0) as f64;
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_convert_to_nanoseconds() {
        let k = ClockKind::here();
        let f = ns_per_tick(k);
        assert!(f > 0.0 && f < 100.0, "{f} ns per tick");
        let (a, na) = (Tsc::now(), monotonic_ns());
        let mut x = 0u64;
        while monotonic_ns() - na < 2_000_000 {
            x = x.wrapping_add(1);
        }
        let (b, nb) = (Tsc::now(), monotonic_ns());
        if k == ClockKind::Tsc {
            let ns = (b - a) as f64 * f;
            let real = (nb - na) as f64;
            assert!((ns - real).abs() / real < 0.01, "{ns} against {real} ({x})");
        }
        assert!(Monotonic::now() > 0);
    }
}
