import ReceiptRemote
import ReceiptVerification

/// Walking Apple's paged answers while recording each page through the ledger.
extension ReceiptIntake {
    /// Runs `walk`, handing each page to `record` before the next page is asked for. A refusal of `record` (the ledger
    /// failed) ends the walk and is what is thrown, so nothing after an unrecorded item counts as done; the client's
    /// own failure becomes the intake's refusal (``serverAPIRefusal(_:_:)``).
    /// - Parameter what: what was walked, for the refusal's message.
    func recordingPages<Walked>(
        _ what: String,
        walk: (([SignedItem]) async throws(RemoteError) -> Void) async throws(RemoteError) -> Walked,
        record: @escaping ([SignedItem]) async throws(IntakeError) -> Void
    ) async throws(IntakeError) -> Walked {
        var stopped: IntakeError?
        do throws(RemoteError) {
            return try await walk { (items) async throws(RemoteError) in
                do throws(IntakeError) {
                    try await record(items)
                } catch {
                    stopped = error
                    throw RemoteError(.cancelled, "the walk stopped: the ledger could not record an item")
                }
            }
        } catch {
            if let stopped { throw stopped }
            throw Self.serverAPIRefusal(error, what)
        }
    }
}

extension SyncAnswer.Failure {
    /// An item of Apple's answer that did not verify, with the verdict's deciding reason.
    init(_ item: SignedItem, verdict: JWSVerdict) {
        let reason = verdict.reason
        self.init(
            index: item.index, reason: reason.map { "\($0.code)" } ?? "jws.invalid",
            message: reason?.message ?? "the item does not verify")
    }
}
