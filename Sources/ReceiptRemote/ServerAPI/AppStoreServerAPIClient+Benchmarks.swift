/// What the Benchmarks package measures of the client beyond its public calls. The package is a package of its own
/// (so its benchmark dependency stays out of the product graph), which `package` access does not reach.
extension AppStoreServerAPIClient {
    /// The token a request for `bundleID` would carry at `now` (seconds since 1970): the held one while it is fresh,
    /// else a newly signed one, exactly as every request gets it.
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` when OpenSSL cannot sign.
    @_spi(Benchmarks) public func currentToken(for bundleID: String, now: Int64) throws(RemoteError) -> String {
        try tokens.token(for: bundleID, now: now)
    }
}
