/// A value Apple documents as one of a fixed set (a notification type, an offer type, a product type), read so
/// that a value Apple adds later is kept rather than refused: ``known`` when this package knows it, ``unknown``
/// with the raw value as signed otherwise. Apple's own libraries do the same (a typed value and the raw one).
public enum AppleEnumeration<Known: RawRepresentable & Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible
where Known.RawValue: Hashable & Sendable & CustomStringConvertible {
    case known(Known)
    case unknown(Known.RawValue)

    /// Reads `rawValue`: a documented value becomes ``known(_:)``, anything else ``unknown(_:)``.
    public init(rawValue: Known.RawValue) {
        self = Known(rawValue: rawValue).map(AppleEnumeration.known) ?? .unknown(rawValue)
    }

    /// The value as signed.
    public var rawValue: Known.RawValue {
        switch self {
        case .known(let value): value.rawValue
        case .unknown(let raw): raw
        }
    }

    /// The documented value, or `nil` for one this package does not know yet.
    public var value: Known? {
        if case .known(let value) = self { return value }
        return nil
    }

    public var description: String { rawValue.description }
}

extension JSONObject {
    /// A string member read as an Apple enumeration; `nil` when absent or not a string.
    public func enumeration<Known>(_ key: String, as _: Known.Type = Known.self) -> AppleEnumeration<Known>?
    where Known.RawValue == String {
        self[key]?.stringValue.map(AppleEnumeration.init(rawValue:))
    }

    /// An integer member read as an Apple enumeration; `nil` when absent or not an integer.
    public func enumeration<Known>(_ key: String, as _: Known.Type = Known.self) -> AppleEnumeration<Known>?
    where Known.RawValue == Int64 {
        integer(key).map(AppleEnumeration.init(rawValue:))
    }
}
