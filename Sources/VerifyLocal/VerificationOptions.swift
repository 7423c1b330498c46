import ArgumentParser
import ReceiptModel
import ReceiptVerification

/// The verification flags of `verify-local`, turned into a configured ``ReceiptVerifier``.
struct VerificationOptions: ParsableArguments {
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("Trust this root certificate too (PEM or DER); repeatable.", valueName: "file"))
    var roots: [String] = []

    @Option(
        name: .customLong("roots"), help: ArgumentHelp("Trust every certificate in this folder too.", valueName: "dir"))
    var rootFolders: [String] = []

    @Option(
        help: ArgumentHelp(
            "Validate chains at the receipt's creation date (creation), at the current time (now), or at an ISO 8601 instant.",
            valueName: "creation|now|instant"))
    var at: String = Self.defaultValidationTime

    @Flag(help: "Trust Xcode's StoreKit Testing certificate (receipts report environment Xcode).")
    var allowXcode = false

    @Option(
        name: .customLong("bundle-id"), help: ArgumentHelp("Accept only this bundle id; repeatable.", valueName: "id"))
    var bundleIDs: [String] = []

    @Option(
        help: ArgumentHelp("Accept only this environment (Production, Sandbox, Xcode); repeatable.", valueName: "name"))
    var environment: [String] = []

    @Option(
        name: .customLong("min-app-version"),
        help: ArgumentHelp("Reject receipts of older app versions.", valueName: "version"))
    var minimumAppVersion: String?

    @Option(
        name: .customLong("device-id"),
        help: ArgumentHelp(
            "Require the receipt's device hash to match this device: an iOS identifierForVendor (32 hex digits or a UUID) or a Mac's MAC address (12 hex digits, aa:bb:cc:dd:ee:ff or aa-bb-cc-dd-ee-ff).",
            valueName: "uuid|mac"))
    var deviceID: String?
    @Option(
        name: .customLong("app-apple-id"),
        help: ArgumentHelp(
            "JWS: a Production notification or app transaction must name this app Apple id (Sandbox ones are not checked on it, as Apple's verifiers do); repeatable.",
            valueName: "id"))
    var appAppleIDs: [Int64] = []
    @Option(
        name: .customLong("max-jws-age"),
        help: ArgumentHelp(
            "JWS: refuse one signed longer ago than this many seconds before now (policy.signed_too_long_ago).",
            valueName: "seconds"))
    var maximumJWSAge: Int64?

    /// `--at`'s default: the receipt's creation date.
    static let defaultValidationTime = "creation"

    /// Parses the validation time; with `now`, the verifier reads the clock it is given once per receipt.
    func validationTime() throws -> ValidationTime {
        switch at {
        case "creation": return .receiptCreation
        case "now": return .now
        default:
            guard let instant = ReceiptDate(rfc3339: at) else {
                throw ValidationError("--at takes creation, now, or an ISO 8601 instant such as 2024-01-31T12:00:00Z")
            }
            return .fixed(instant)
        }
    }

    func makeVerifier(clock: @escaping @Sendable () -> ReceiptDate) throws -> ReceiptVerifier {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode)
        for path in roots + rootFolders {
            do { try anchors.addRoots(fromPath: path) } catch {
                throw ValidationError("cannot load roots from \(path): \(error.reason)")
            }
        }
        var policy = ReceiptPolicy()
        if !bundleIDs.isEmpty { policy.acceptedBundleIDs = Set(bundleIDs) }
        if !environment.isEmpty {
            policy.acceptedEnvironments = Set(
                try environment.map { name in
                    guard let value = ReceiptEnvironment(rawValue: name) else {
                        throw ValidationError("--environment takes Production, Sandbox or Xcode, not \(name)")
                    }
                    return value
                })
        }
        if let minimumAppVersion, AppVersion(minimumAppVersion) == nil {
            throw ValidationError(
                "--min-app-version takes dot-separated numbers, each optionally with a d, a, b or fc stage (1.10, 3.3.1b4), not \(minimumAppVersion)"
            )
        }
        policy.minimumAppVersion = minimumAppVersion
        if let deviceID {
            guard let identifier = DeviceIdentifier(deviceID) else {
                throw ValidationError(
                    "--device-id takes an iOS identifier (32 hex digits or a UUID) or a Mac's MAC address (12 hex digits or aa:bb:cc:dd:ee:ff), not \(deviceID)"
                )
            }
            policy.deviceIdentifier = identifier
        }
        if !appAppleIDs.isEmpty { policy.acceptedAppAppleIDs = Set(appAppleIDs) }
        if let maximumJWSAge {
            guard maximumJWSAge > 0, maximumJWSAge <= Int64(Int32.max) else {
                throw ValidationError("--max-jws-age takes a positive number of seconds, at most \(Int32.max)")
            }
            policy.maximumSignedAge = .seconds(maximumJWSAge)
        }
        return ReceiptVerifier(
            configuration: .init(
                trustAnchors: anchors, validationTime: try validationTime(), policy: policy, clock: clock))
    }
}
