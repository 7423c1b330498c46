/// One `"key" = "value";` line of an old-style property list, kept in the order given.
public struct IOS6PlistEntry: Hashable, Sendable, Codable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}
