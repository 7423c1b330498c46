public import Foundation

/// Runs blocking work (a child process to wait for, psql) on a thread of its own rather than on one of Swift
/// concurrency's. The test runner's cooperative pool has one thread per core; a test that blocks one there takes it
/// from every other test. CI on `c65205b` failed so: 30 PostgreSQL migrations missed their 12-second deadline while
/// the tests' psql calls held the pool (a `CREATE DATABASE` writes about 4 MB of WAL; a `DROP DATABASE … WITH (FORCE)`
/// took 2-5 s on a loaded machine, waiting for the dropped database's sessions to end).
public enum OwnThread {
    /// `body`'s result, computed on a new thread while the caller's task is suspended.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
