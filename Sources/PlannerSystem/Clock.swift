import Glibc
import PlannerCore

public enum SystemClock {
    /// The wall clock (CLOCK_REALTIME) now.
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}
