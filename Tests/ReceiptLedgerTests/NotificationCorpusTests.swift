import Foundation
import ReceiptLedger
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptIntake

/// The conformance corpus (fixtures/jws/corpus-*: every notification type and subtype Apple documents, payloads with
/// members Apple has not defined) through verification and the ledger, on both stores: each fixture is valid and
/// leaves exactly the state its expectation (and docs/jws.md) promises, and a retry of it changes nothing.
@Suite struct NotificationCorpusTests {
    typealias Kind = LedgerStoreTests.Kind

    static let folder = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasPrefix("corpus-") && $0.hasSuffix(".expected.json") }
            .map { String($0.dropLast(".expected.json".count)) }.sorted()
    }()

    /// The one app the corpus's fixtures are about.
    static let app = "org.example.receiptforge.sample"

    static func verifier() throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        try anchors.addRoots(
            fromPath: folder.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("certs/test-jws-root.pem").path)
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = [app]
        policy.acceptedAppAppleIDs = [1_234_567_890]
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: policy))
    }

    @Test func theCorpusCoversEveryDocumentedTypeAndSubtype() throws {
        var pairs: Set<String> = []
        for name in Self.names {
            let text = try String(contentsOf: Self.folder.appendingPathComponent("\(name).jws"), encoding: .utf8)
            guard case .notification(let notification) = JWSPayload(try CompactJWS(text).payload, kind: .notification)
            else { continue }
            if let type = notification.notificationType?.value { pairs.insert(type.rawValue) }
            if let subtype = notification.subtype?.value { pairs.insert(subtype.rawValue) }
        }
        for type in NotificationType.allCases { #expect(pairs.contains(type.rawValue), "\(type)") }
        for subtype in NotificationSubtype.allCases { #expect(pairs.contains(subtype.rawValue), "\(subtype)") }
    }

    @Test(arguments: Kind.allCases)
    func eachFixtureLeavesTheStateItPromises(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        #expect(Self.names.count >= 40)
        let place = try await LedgerStoreTests.Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let verifier = try Self.verifier()
        // The latest signed date recorded in each environment, for the one app the verifier accepts.
        var latest: [ReceiptEnvironment: ReceiptDate] = [:]
        for (index, name) in Self.names.enumerated() {
            let expected = try SharedTestData.json(at: Self.folder.appendingPathComponent("\(name).expected.json"))
            let promised = try #require(expected["ledger"] as? [String: Any], "\(name)")
            let payloadKind = try #require(JWSPayload.Kind(rawValue: expected["payload_type"] as? String ?? ""))
            let text = Array(try Data(contentsOf: Self.folder.appendingPathComponent("\(name).jws")))
            let verdict = verifier.verifyJWS(text[...], kind: payloadKind)
            #expect(verdict.isValid, "\(name): \(verdict.reasons)")
            let time = ReceiptDate(clampingMillisecondsSince1970: 1_750_000_000_000 + Int64(index))
            let entry = try LedgerEntry(
                jws: verdict, received: text, endpoint: "/v1/notifications/appstore", account: nil, time: time,
                catalogue: ledger.catalogue, onConflict: .report)
            let first = try await ledger.record(entry)
            let transactions = promised["transactions"] as? [String] ?? []
            #expect(first.newTransactionIDs.sorted() == transactions, "\(name)")
            #expect(entry.notification?.id == promised["notification"] as? String, "\(name)")
            if let notification = entry.notification {
                // Whichever object names the app (data, summary, externalPurchaseToken, appData), it is recorded.
                #expect(notification.bundleID == Self.app, "\(name)")
                let environment = try #require(notification.environment, "\(name)")
                if let signed = notification.signedDate, !first.isDuplicateNotification {
                    latest[environment] = max(latest[environment] ?? signed, signed)
                }
            }
            for id in transactions {
                let held = try #require(try await store.transaction(id: id), "\(name): \(id)")
                let refunded = (promised["refunded"] as? [String] ?? []).contains(id)
                #expect((held.0.cancellationDate != nil) == refunded, "\(name): \(id) refunded")
            }
            let renewal = promised["renewal"] as? String
            let originals = entry.transactions.map(\.originalTransactionID) + (renewal.map { [$0] } ?? [])
            let held = try await store.subscriptions(originalTransactionIDs: originals)
            #expect(held.renewals.map(\.originalTransactionID) == (renewal.map { [$0] } ?? []), "\(name)")
            // Apple's retry of the same notification changes nothing.
            let again = try await ledger.record(entry)
            #expect(again.newTransactionIDs.isEmpty, "\(name)")
            #expect(again.isDuplicateNotification == (entry.notification != nil), "\(name)")
        }
        #expect(Set(latest.keys) == [.production, .sandbox], "the corpus has notifications of both environments")
        for (environment, signed) in latest {
            #expect(
                try await ledger.latestNotificationSignedDate(bundleID: Self.app, environment: environment) == signed)
        }
        let audit = try await store.auditEntries(AuditQuery())
        #expect(audit.count == 2 * Self.names.count, "every verification is audited, retries included")
        await store.close()
    }
}
