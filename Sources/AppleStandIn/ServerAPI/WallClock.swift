#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real time of day, for the stand-in's App Store Server API: `Retry-After` is a UNIX time, so a client
/// honouring it and the stand-in checking it must read the same clock.
package enum WallClock {
    /// Now, milliseconds since 1970 (`CLOCK_REALTIME`).
    @Sendable package static func unixMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
