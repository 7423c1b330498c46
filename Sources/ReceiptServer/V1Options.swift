public import ReceiptModel

/// The options of a `/v1/verify` request, from its JSON members or, for raw bodies, its query.
public struct V1Options: Sendable, Equatable {
    /// A per-request validation time.
    public enum Time: Sendable, Equatable {
        case receiptCreation
        /// The instant the server answers.
        case now
        case fixed(ReceiptDate)
    }

    /// `validation_time`: `creation`, `now` or an RFC 3339 instant; `nil` uses the server's policy.
    public var validationTime: Time?
    /// `exclude_old_transactions`.
    public var excludeOldTransactions: Bool
    /// `password`, the app's shared secret (for the remote fallback).
    public var password: String?
    /// `allow_remote`: `false` keeps this request local even when the fallback is on.
    public var allowsRemote: Bool

    public init(
        validationTime: Time? = nil, excludeOldTransactions: Bool = false, password: String? = nil,
        allowsRemote: Bool = true
    ) {
        self.validationTime = validationTime
        self.excludeOldTransactions = excludeOldTransactions
        self.password = password
        self.allowsRemote = allowsRemote
    }

    /// Reads the options from a JSON request.
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidJSON`` or ``ServerError/Code/invalidOption``.
    public init(json: RequestJSON) throws(ServerError) {
        self.init()
        if let text = try json.string("validation_time") {
            validationTime = try Self.time(String(decoding: text, as: UTF8.self))
        }
        excludeOldTransactions = try json.bool("exclude_old_transactions") ?? false
        password = try json.string("password").map { String(decoding: $0, as: UTF8.self) }
        allowsRemote = try json.bool("allow_remote") ?? true
    }

    /// Reads the options from query parameters (`?validation_time=now&allow_remote=false`).
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidOption``.
    public init(query: [(String, String)]) throws(ServerError) {
        self.init()
        for (name, value) in query {
            switch name {
            case "validation_time": validationTime = try Self.time(value)
            case "exclude_old_transactions": excludeOldTransactions = try Self.flag(name, value)
            case "allow_remote": allowsRemote = try Self.flag(name, value)
            default: continue  // unknown parameters are ignored, as unknown JSON members are
            }
        }
    }

    static func time(_ text: String) throws(ServerError) -> Time {
        switch text {
        case "creation": return .receiptCreation
        case "now": return .now
        default:
            guard let instant = ReceiptDate(rfc3339: text) else {
                throw ServerError(.invalidOption, "validation_time takes creation, now or an RFC 3339 instant")
            }
            return .fixed(instant)
        }
    }

    static func flag(_ name: String, _ value: String) throws(ServerError) -> Bool {
        switch value {
        case "true", "1": return true
        case "false", "0": return false
        default: throw ServerError(.invalidOption, "\(name) takes true or false")
        }
    }
}
