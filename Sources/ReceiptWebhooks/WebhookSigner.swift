import BER
import ReceiptCrypto
public import ReceiptModel

/// Signs what the deliverer POSTs, so a receiver can tell the server sent it and when.
///
/// The header is `X-Receipt-Signature: t=<unix seconds>,v1=<hex>` where each `v1` is HMAC-SHA256, keyed by a
/// secret's UTF-8 bytes, of `"<t>.<body>"` (the timestamp, a full stop, the exact body bytes). With several secrets
/// (a rotation: the new one configured beside the old) there is one `v1=` per secret, in the configured order, and
/// a receiver accepts the request when any of them matches a secret it knows. Binding `t` into the tag lets the
/// receiver refuse replays older than its tolerance; each attempt is signed afresh.
public struct WebhookSigner: Sendable, CustomStringConvertible {
    /// The header's name.
    public static let headerName = "X-Receipt-Signature"

    /// One HMAC key per secret. Built once: the secrets are checked at start, not at the first event.
    private let keys: [PrivateKey]

    /// - Parameter secrets: the shared secrets, at least one, none empty; never logged.
    /// - Throws: ``WebhookError`` `webhook.invalid_secret`.
    public init(secrets: [String]) throws(WebhookError) {
        guard !secrets.isEmpty else { throw WebhookError(.invalidSecret, "a webhook needs at least one secret") }
        var keys: [PrivateKey] = []
        for (index, secret) in secrets.enumerated() {
            do {
                keys.append(try PrivateKey(hmacSecret: Array(secret.utf8)))
            } catch {
                // The secret itself is never part of the message, only its position.
                throw WebhookError(.invalidSecret, "webhook secret \(index + 1) of \(secrets.count) is empty")
            }
        }
        self.keys = keys
    }

    /// The value of ``headerName`` for `body` sent at `time`.
    /// - Parameters:
    ///   - body: the exact bytes of the request's body.
    ///   - time: when the attempt starts; written as whole Unix seconds (floored).
    /// - Throws: ``WebhookError`` `webhook.signing_failed` when OpenSSL fails.
    public func signature(body: [UInt8], at time: ReceiptDate) throws(WebhookError) -> String {
        let seconds = Self.unixSeconds(time)
        // The signed message is "<t>.<body>": one copy, of the body, to prefix it.
        var message = Array("\(seconds).".utf8)
        message.append(contentsOf: body)
        var header = "t=\(seconds)"
        for key in keys {
            do {
                header += ",v1=" + Hex.encode(try key.signHS256(message: message[...]))
            } catch {
                throw WebhookError(.signingFailed, "HMAC-SHA256 failed: \(error.code)")
            }
        }
        return header
    }

    /// `time` as whole seconds since the epoch, floored (an instant before the epoch floors towards the past).
    static func unixSeconds(_ time: ReceiptDate) -> Int64 {
        let milliseconds = time.millisecondsSince1970
        return milliseconds >= 0 ? milliseconds / 1000 : -((-milliseconds + 999) / 1000)
    }

    /// How many secrets sign; never the secrets.
    public var description: String { "webhook signer (\(keys.count) secret\(keys.count == 1 ? "" : "s"))" }
}
