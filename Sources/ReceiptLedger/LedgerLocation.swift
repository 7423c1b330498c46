import BER

/// Where the ledger is, as `--ledger` names it: `none`, `sqlite:PATH` (a bare path ending in `.sqlite` too), or
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require]` (`postgresql://` too).
public enum LedgerLocation: Sendable, Hashable, CustomStringConvertible {
    case none
    case sqlite(path: String)
    case postgres(Postgres)

    /// A PostgreSQL server and database.
    public struct Postgres: Sendable, Hashable {
        public var user: String
        /// From the URL, or from `RECEIPT_SERVER_LEDGER_PASSWORD` (which wins when both are given).
        public var password: String?
        public var host: String
        public var port: Int
        public var database: String
        public var requiresTLS: Bool

        public init(
            user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
            requiresTLS: Bool = false
        ) {
            self.user = user
            self.password = password
            self.host = host
            self.port = port
            self.database = database
            self.requiresTLS = requiresTLS
        }
    }

    /// The server's default: `./receipt-ledger.sqlite`.
    public static let defaultLocation = LedgerLocation.sqlite(path: "receipt-ledger.sqlite")

    /// Reads a `--ledger` value.
    /// - Parameter password: a password given apart from the URL; wins over one in it.
    /// - Throws: ``LedgerError`` `ledger.invalid_location`.
    public init(parsing text: String, password: String? = nil) throws(LedgerError) {
        if text == "none" {
            self = .none
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw LedgerError(.invalidLocation, "sqlite: needs a path (sqlite:PATH)") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try Self.postgres(text, password: password))
        } else if text.hasSuffix(".sqlite") {
            self = .sqlite(path: text)
        } else {
            throw LedgerError(
                .invalidLocation, "--ledger takes none, sqlite:PATH or postgres://USER@HOST:PORT/DATABASE")
        }
    }

    /// The location without its password.
    public var description: String {
        switch self {
        case .none: "none"
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let server):
            "postgres://\(server.user)@\(server.host):\(server.port)/\(server.database)"
                + (server.requiresTLS ? "?sslmode=require" : "")
        }
    }

    private static func postgres(_ text: String, password given: String?) throws(LedgerError) -> Postgres {
        let rest = text.drop(while: { $0 != ":" }).dropFirst("://".count)
        let (address, query) = split(rest, at: "?")
        let (authority, path) = split(address, at: "/")
        guard let at = authority.lastIndex(of: "@") else {
            throw LedgerError(.invalidLocation, "a PostgreSQL URL names its user: postgres://USER@HOST:PORT/DATABASE")
        }
        let (userText, passwordText) = split(authority[..<at], at: ":")
        let hostPort = authority[authority.index(after: at)...]
        var host = Substring(hostPort)
        var port = 5432
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { port = try portNumber(after.dropFirst()) }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            port = try portNumber(hostPort[hostPort.index(after: colon)...])
        }
        guard let user = Hex.percentDecoded(userText), !user.isEmpty, !host.isEmpty,
            let database = path.flatMap(Hex.percentDecoded), !database.isEmpty
        else {
            throw LedgerError(.invalidLocation, "a PostgreSQL URL is postgres://USER@HOST:PORT/DATABASE")
        }
        var requiresTLS = false
        for parameter in (query ?? "").split(separator: "&") {
            let (name, value) = split(parameter, at: "=")
            guard name == "sslmode" else { continue }
            switch value {
            case "disable"?: requiresTLS = false
            case "require"?, "verify-full"?: requiresTLS = true
            default: throw LedgerError(.invalidLocation, "sslmode takes disable or require")
            }
        }
        var urlPassword: String?
        if let passwordText {
            guard let decoded = Hex.percentDecoded(passwordText) else {
                throw LedgerError(.invalidLocation, "the PostgreSQL URL's password is not valid percent-encoding")
            }
            urlPassword = decoded
        }
        return Postgres(
            user: user, password: given ?? urlPassword, host: String(host), port: port, database: database,
            requiresTLS: requiresTLS)
    }

    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    private static func portNumber(_ text: Substring) throws(LedgerError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw LedgerError(.invalidLocation, "a PostgreSQL port is 1 to 65535")
        }
        return port
    }
}
