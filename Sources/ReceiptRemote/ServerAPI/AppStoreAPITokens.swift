import Synchronization

/// The App Store Server API tokens in use: one per bundle id (Apple requires `bid`), reused until shortly before it
/// expires, and dropped when Apple refuses it (a 401) so the next request signs a new one.
final class AppStoreAPITokens: Sendable {
    private struct Held {
        var token: String
        /// `exp`, seconds since 1970.
        var expires: Int64
    }

    let key: AppStoreAPIKey
    /// `exp` − `iat`, in seconds.
    let lifetime: Int64
    /// How long before `exp` a token is replaced, in seconds, so a request in flight never carries an expired one.
    let renewalMargin: Int64
    private let held = Mutex<[String: Held]>([:])

    init(key: AppStoreAPIKey, lifetime: Duration, renewalMargin: Duration) {
        self.key = key
        // Apple refuses an `exp` more than 60 minutes after `iat`.
        self.lifetime = min(max(Int64(lifetime.components.seconds), 60), 3600)
        self.renewalMargin = min(max(Int64(renewalMargin.components.seconds), 0), self.lifetime / 2)
    }

    /// The token to send for `bundleID` at `now` (seconds since 1970): the held one while it has more than the
    /// renewal margin left, else a new one.
    func token(for bundleID: String, now: Int64) throws(RemoteError) -> String {
        if let current = held.withLock({ $0[bundleID] }), now < current.expires - renewalMargin,
            now >= current.expires - lifetime
        {
            return current.token
        }
        let token = try key.token(bundleID: bundleID, issuedAt: now, lifetime: lifetime)
        held.withLock { $0[bundleID] = Held(token: token, expires: now + lifetime) }
        return token
    }

    /// Forgets `token` after Apple refused it; the next ``token(for:now:)`` signs another.
    func discard(_ token: String, for bundleID: String) {
        held.withLock { held in
            if held[bundleID]?.token == token { held[bundleID] = nil }
        }
    }
}
