/// The environment a StoreKit 2 payload names (`environment`, an app transaction's `receiptType`).
public enum JWSEnvironment: String, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode: signed by a key made on the developer's machine.
    case xcode = "Xcode"
    /// Apple's libraries' unit-test environment.
    case localTesting = "LocalTesting"
}
