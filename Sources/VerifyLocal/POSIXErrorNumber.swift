#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An `errno` value from a failed POSIX call, described in words as `strerror` describes it.
struct POSIXErrorNumber: Error, Equatable, CustomStringConvertible {
    let value: Int32

    init(_ value: Int32) { self.value = value }

    /// `errno` as it is now: read right after the call that failed.
    static var current: POSIXErrorNumber { POSIXErrorNumber(errno) }

    var description: String { String(cString: strerror(value)) }
}
