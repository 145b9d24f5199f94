import Glibc

/// Milliseconds since 1970-01-01 UTC: every time the store keeps.
public typealias Milliseconds = Int64

public enum WallClock {
    /// The current wall-clock time in milliseconds.
    public static func nowMilliseconds() -> Milliseconds {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Milliseconds(spec.tv_sec) * 1000 + Milliseconds(spec.tv_nsec / 1_000_000)
    }
}
