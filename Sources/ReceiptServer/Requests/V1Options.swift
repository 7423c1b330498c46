import ReceiptLedger
import ReceiptModel
public import ReceiptVerification

/// The options of a `/v1/verify` request, from its JSON members or, for raw bodies, its query.
///
/// The operator's configuration wins: an option may only narrow what the server allows, never widen it
/// (docs/server.md, "What a client may set"). `validation_time` is checked against the server's policy
/// by ``validationTime(policy:now:)``; `allow_remote` can only turn the fallback off; `password` is held to
/// the configured shared secret by the route, as on `/verifyReceipt`; `device_id` adds a device check to the
/// operator's policy (``policy(narrowing:)``).
@_spi(Fuzzing) public struct V1Options: Sendable, Equatable {
    /// `validation_time`: `creation`, `now` or an RFC 3339 instant; `nil` uses the server's policy. Only
    /// choices at least as strict as the server's are accepted (``validationTime(policy:now:)``).
    public var validationTime: ValidationTime?
    /// `exclude_old_transactions`.
    public var excludeOldTransactions: Bool
    /// `password`, the app's shared secret (for the remote fallback).
    public var password: String?
    /// `allow_remote`: `false` keeps this request local even when the fallback is on; `true` cannot turn
    /// on a fallback the server does not have.
    public var allowsRemote: Bool
    /// `device_id`: the device the receipt must have been issued to (its hash, attribute 5), in any form
    /// ``ReceiptVerification/DeviceIdentifier`` parses: an iOS identifierForVendor or a Mac's MAC address.
    /// Only narrows: a receipt the operator's policy rejects stays rejected.
    public var deviceIdentifier: DeviceIdentifier?
    /// `account`: the app's user id (1-256 bytes of UTF-8). With the ledger on, the first valid verification
    /// naming an account binds the receipt's unbound purchases to it; another account gets them as conflicts.
    public var account: String?

    public init(
        validationTime: ValidationTime? = nil, excludeOldTransactions: Bool = false, password: String? = nil,
        allowsRemote: Bool = true, deviceIdentifier: DeviceIdentifier? = nil, account: String? = nil
    ) {
        self.account = account
        self.validationTime = validationTime
        self.excludeOldTransactions = excludeOldTransactions
        self.password = password
        self.allowsRemote = allowsRemote
        self.deviceIdentifier = deviceIdentifier
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
        if let text = try json.string("device_id") {
            deviceIdentifier = try Self.device(String(decoding: text, as: UTF8.self))
        }
        if let bytes = try json.string("account") { account = try Self.account(bytes) }
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
            case "device_id": deviceIdentifier = try Self.device(value)
            case "account": account = try Self.account(Array(value.utf8))
            default: continue  // unknown parameters are ignored, as unknown JSON members are
            }
        }
    }

    /// The instant this request's chain is validated at: the server's policy, or the client's
    /// `validation_time` when that is at least as strict.
    ///
    /// - Server `now`: only `now`. `creation` or a fixed instant in the past would accept a chain that has
    ///   expired since (a fixed instant in the future, one not yet valid), which the operator ruled out.
    /// - Server `creation`: `creation` or `now`. `now` is at least as strict: the verifier also requires the
    ///   creation date inside the leaf's validity at any validation time, and a leaf's validity lies inside
    ///   its issuer's (every Apple chain), so a chain accepted at `now` was valid at the creation date too.
    ///   A fixed instant is refused: it could validate a chain that was not valid when the receipt was
    ///   created.
    ///
    /// - Parameter policy: the operator's validation time.
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidOption`` when the client asks for a looser time.
    public func validationTime(policy: ValidationTime) throws(ServerError) -> ValidationTime {
        switch (policy, validationTime) {
        case (.now, nil), (.now, .now?), (.receiptCreation, .now?): return .now
        case (.receiptCreation, nil), (.receiptCreation, .receiptCreation?): return .receiptCreation
        case (.fixed(let instant), nil): return .fixed(instant)
        case (.fixed(let instant), .fixed(let asked)?) where asked == instant: return .fixed(instant)
        case (.fixed, _):
            throw ServerError(
                .invalidOption, "this server validates chains at a fixed instant: validation_time may only name it")
        case (.now, .receiptCreation?), (.now, .fixed?):
            throw ServerError(
                .invalidOption,
                "this server validates chains at the time of the request: validation_time may only be now")
        case (.receiptCreation, .fixed?):
            throw ServerError(
                .invalidOption,
                "a fixed validation_time could accept a chain this server's policy rejects: use creation or now")
        }
    }

    /// The policy this request is verified under: the operator's `policy`, with the device check
    /// `device_id` asks for added; `nil` (the operator's, unchanged) without `device_id`.
    ///
    /// A device check only narrows: it turns no rejected receipt into an accepted one. When the operator's
    /// policy already names a device, only that device may be named.
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidOption`` when `device_id` names another device than
    ///   the operator's.
    public func policy(narrowing policy: ReceiptPolicy) throws(ServerError) -> ReceiptPolicy? {
        guard let deviceIdentifier else { return nil }
        if let required = policy.deviceIdentifier, required != deviceIdentifier {
            throw ServerError(
                .invalidOption, "this server checks receipts against one device: device_id may only name it")
        }
        var narrowed = policy
        narrowed.deviceIdentifier = deviceIdentifier
        return narrowed
    }

    static func device(_ text: String) throws(ServerError) -> DeviceIdentifier {
        guard let device = DeviceIdentifier(text) else {
            throw ServerError(
                .invalidOption,
                "device_id takes an iOS identifier (32 hex digits or a UUID) or a Mac's MAC address (12 hex digits or aa:bb:cc:dd:ee:ff)"
            )
        }
        return device
    }

    static func account(_ bytes: some Collection<UInt8>) throws(ServerError) -> String {
        guard let account = String(validating: bytes, as: UTF8.self), LedgerEntry.isValidAccount(account) else {
            throw ServerError(.invalidOption, "account takes 1 to 256 bytes of UTF-8 (no U+0000)")
        }
        return account
    }

    static func time(_ text: String) throws(ServerError) -> ValidationTime {
        guard let time = ReceiptServerConfiguration.validationTime(named: text) else {
            throw ServerError(.invalidOption, "validation_time takes creation, now or an RFC 3339 instant")
        }
        return time
    }

    static func flag(_ name: String, _ value: String) throws(ServerError) -> Bool {
        switch value {
        case "true", "1": return true
        case "false", "0": return false
        default: throw ServerError(.invalidOption, "\(name) takes true or false")
        }
    }
}
