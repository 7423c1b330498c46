public import Foundation

/// A fresh database on the throw-away PostgreSQL cluster `scripts/test` starts (scripts/test-postgres), for a
/// test of its own; dropped by ``drop()``. Tests skip when the cluster is not there. Each call runs psql on a thread
/// of its own (``OwnThread``), never on the test runner's cooperative pool: creating and dropping a database take
/// from a fraction of a second to seconds, and while one blocks a pool thread, other tests' ledgers miss deadlines.
public struct PostgresTestDatabase: Sendable {
    /// The environment variable holding the cluster's superuser URL.
    public static let environmentVariable = "RECEIPT_LEDGER_TEST_POSTGRES"

    /// The cluster's superuser URL, when `scripts/test` started one.
    public static var clusterURL: String? {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Why PostgreSQL tests are skipped when they are.
    public static let skipMessage =
        "no PostgreSQL cluster (\(environmentVariable) unset): run scripts/test, which starts one; PostgreSQL checks skipped"

    public let name: String
    /// `postgres://postgres@127.0.0.1:PORT/NAME`.
    public let url: String
    let clusterURL: String

    /// Creates a database with a fresh name on the cluster.
    public static func create(prefix: String = "ledger_test") async throws -> PostgresTestDatabase {
        guard let clusterURL else { throw CocoaError(.featureUnsupported) }
        let name = "\(prefix)_\(UInt64.random(in: 0...UInt64.max))"
        try await psql(clusterURL, "CREATE DATABASE \(name)")
        let base = clusterURL[..<(clusterURL.lastIndex(of: "/") ?? clusterURL.endIndex)]
        return PostgresTestDatabase(name: name, url: "\(base)/\(name)", clusterURL: clusterURL)
    }

    /// `open`'s result (opening a store on this database, which migrates it), with at most one other such open in
    /// the test process running at the same time. A migration is dozens of statements under the store's deadline
    /// (12 s in all); when every ledger test of the run migrates at once on a busy two-core machine, they share the
    /// CPU with each other and miss it together. Waiting for a turn does not count against the deadline.
    public func opening<T: Sendable>(_ open: @Sendable () async throws -> T) async throws -> T {
        try await Self.migrations.run(open)
    }

    private static let migrations = AsyncGate(width: 2)

    /// Runs SQL as the superuser, in this database (or the cluster's own with `onCluster`); returns what psql printed
    /// (unaligned, tuples only).
    @discardableResult
    public func run(_ sql: String, onCluster: Bool = false) async throws -> String {
        try await Self.psql(onCluster ? clusterURL : url, sql)
    }

    /// Refuses new connections and ends every open one: the store goes away for whoever uses it.
    public func cutOff() async throws {
        try await run("ALTER DATABASE \(name) ALLOW_CONNECTIONS false", onCluster: true)
        try await run(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(name)'", onCluster: true)
    }

    /// Accepts connections again after ``cutOff()``.
    public func restore() async throws {
        try await run("ALTER DATABASE \(name) ALLOW_CONNECTIONS true", onCluster: true)
    }

    /// Drops the database, ending whatever still uses it. Returns at once (it is called from `deinit`s): psql runs
    /// on a thread of its own, and what it says is not waited for.
    public func drop() {
        let sql = "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"
        let clusterURL = clusterURL
        Thread { _ = try? Self.psqlAndWait(clusterURL, sql) }.start()
    }

    @discardableResult
    static func psql(_ url: String, _ sql: String) async throws -> String {
        try await OwnThread.run { try psqlAndWait(url, sql) }
    }

    private static func psqlAndWait(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PSQLFailure(message: String(decoding: complaint, as: UTF8.self))
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// psql exited with an error.
    public struct PSQLFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "psql: \(message)" }
    }
}
