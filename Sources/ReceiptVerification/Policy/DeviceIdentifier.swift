internal import BER

/// A device's identifier for the receipt's device hash: `identifierForVendor` on iOS (a UUID), the
/// primary network interface's MAC address on macOS, or any raw bytes.
///
/// The receipt's attribute 5 is SHA-1(device id ‖ opaque value ‖ bundle id DER); checking it binds a
/// receipt to the device that sent it.
public struct DeviceIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The raw identifier bytes, as hashed.
    public let bytes: [UInt8]

    /// Wraps raw identifier bytes (e.g. a 6-byte MAC address).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses 32 hex digits (`e618109862dd433fbb94675d3815d263`) or a UUID string
    /// (`E6181098-62DD-433F-BB94-675D3815D263`); `nil` for anything else.
    public init?(_ text: String) {
        var hex = Array(text.utf8)
        if hex.count == 36 {
            guard [8, 13, 18, 23].allSatisfy({ hex[$0] == UInt8(ascii: "-") }) else { return nil }
            hex.removeAll { $0 == UInt8(ascii: "-") }
        }
        guard hex.count == 32, case .success(let bytes) = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// Lower-case hex.
    public var description: String { Hex.encode(bytes) }
}
