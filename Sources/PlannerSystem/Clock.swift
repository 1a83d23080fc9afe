import Glibc
import PlannerCore

/// The system's clocks, read in one place.
public enum SystemClock {
    /// The wall clock (CLOCK_REALTIME) now.
    public static func now() -> Instant {
        let ts = read(CLOCK_REALTIME)
        return Instant(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }

    /// The wall clock in nanoseconds since the epoch: what a file's modification time is compared with.
    public static func nowNanoseconds() -> Int64 {
        let ts = read(CLOCK_REALTIME)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Milliseconds of CLOCK_MONOTONIC: how long something took or may still take, whatever the wall clock
    /// does meanwhile (set back, stepped ahead).
    public static func monotonicMilliseconds() -> Int64 {
        let ts = read(CLOCK_MONOTONIC)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return ts
    }
}
