import ArgumentParser
import Foundation
import ReceiptVerification

/// The flags every command that verifies shares: the trust anchors and the operator's policy (`--root`, `--roots`,
/// `--bundle-id`, `--environment`, `--app-apple-id`, `--max-jws-age`, `--allow-xcode`), each with its environment
/// variable.
struct TrustOptions: ParsableArguments {
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp(
            "Trust this root certificate too (PEM or DER); repeatable [RECEIPT_SERVER_ROOT, ':'-separated].",
            valueName: "file"))
    var roots: [String] = []

    @Option(
        name: .customLong("roots"),
        help: ArgumentHelp("Trust every certificate in this folder too [RECEIPT_SERVER_ROOTS].", valueName: "dir"))
    var rootFolders: [String] = []

    @Option(
        name: .customLong("bundle-id"),
        help: ArgumentHelp(
            "Accept only this bundle id; repeatable [RECEIPT_SERVER_BUNDLE_IDS, ','-separated].", valueName: "id"))
    var bundleIDs: [String] = []

    @Option(
        help: ArgumentHelp(
            "Accept only this environment (Production, Sandbox, Xcode); repeatable [RECEIPT_SERVER_ENVIRONMENTS].",
            valueName: "name"))
    var environment: [String] = []
    @Option(
        name: .customLong("app-apple-id"),
        help: ArgumentHelp(
            "JWS and notifications: a Production payload must name this app Apple id (Apple leaves it out in Sandbox, which is not checked on it, as Apple's verifiers do); needed for Production notifications; repeatable [RECEIPT_SERVER_APP_APPLE_IDS, ','-separated].",
            valueName: "id"))
    var appAppleIDs: [Int64] = []
    @Option(
        name: .customLong("max-jws-age"),
        help: ArgumentHelp(
            "JWS and notifications: refuse one signed longer ago than this many seconds [RECEIPT_SERVER_MAX_JWS_AGE]. Default: no limit.",
            valueName: "seconds"))
    var maximumJWSAge: Double?

    @Flag(help: "Trust Xcode's StoreKit Testing certificate [RECEIPT_SERVER_ALLOW_XCODE=1].")
    var allowXcode = false

    /// Apple's pinned roots, Xcode's when allowed, and the operator's extra roots.
    func trustAnchors(_ env: ServeEnvironment) throws -> TrustAnchors {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode || env.flag("RECEIPT_SERVER_ALLOW_XCODE"))
        let paths =
            env.list(roots, "RECEIPT_SERVER_ROOT", separator: ":")
            + env.list(rootFolders, "RECEIPT_SERVER_ROOTS", separator: ":")
        for path in paths {
            do { try anchors.addRoots(fromPath: path) } catch {
                throw ValidationError("cannot load roots from \(path): \(error.reason)")
            }
        }
        return anchors
    }

    /// The operator's policy, with the bundle ids and environment names it was given (for the start-up log).
    func policy(_ env: ServeEnvironment) throws -> (ReceiptPolicy, bundles: [String], environments: [String]) {
        var policy = ReceiptPolicy()
        let bundles = env.list(bundleIDs, "RECEIPT_SERVER_BUNDLE_IDS")
        // An empty bundle id names no app: it would let a receipt without one pass as the operator's.
        guard !bundles.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw ValidationError("--bundle-id [RECEIPT_SERVER_BUNDLE_IDS] takes an app's bundle id, not an empty one")
        }
        if !bundles.isEmpty { policy.acceptedBundleIDs = Set(bundles) }
        let environments = env.list(self.environment, "RECEIPT_SERVER_ENVIRONMENTS")
        if !environments.isEmpty {
            policy.acceptedEnvironments = Set(
                try environments.map { name in
                    guard let value = ReceiptEnvironment(rawValue: name) else {
                        throw ValidationError("--environment takes Production, Sandbox or Xcode, not \(name)")
                    }
                    return value
                })
        }
        let appIDs =
            appAppleIDs.isEmpty
            ? try env.list([], "RECEIPT_SERVER_APP_APPLE_IDS").map { text in
                guard let id = Int64(text) else { throw ValidationError("RECEIPT_SERVER_APP_APPLE_IDS takes numbers") }
                return id
            } : appAppleIDs
        if !appIDs.isEmpty { policy.acceptedAppAppleIDs = Set(appIDs) }
        if maximumJWSAge != nil || env.text("RECEIPT_SERVER_MAX_JWS_AGE") != nil {
            policy.maximumSignedAge = try env.seconds(
                maximumJWSAge, "--max-jws-age", "RECEIPT_SERVER_MAX_JWS_AGE", default: 0)
        }
        return (policy, bundles, environments)
    }

    /// The verifier for these anchors and this policy, validating at the payload's creation date.
    func verifier(_ env: ServeEnvironment) throws -> (ReceiptVerifier, bundles: [String], environments: [String]) {
        let (policy, bundles, environments) = try policy(env)
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: try trustAnchors(env), validationTime: .receiptCreation, policy: policy))
        return (verifier, bundles, environments)
    }
}
