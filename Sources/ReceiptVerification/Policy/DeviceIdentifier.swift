internal import BER

/// A device's identifier for the receipt's device hash: `identifierForVendor` on iOS (a UUID, 16 bytes), the
/// primary network interface's MAC address on macOS (6 bytes), or any raw bytes.
///
/// The receipt's attribute 5 is SHA-1(device id ‖ opaque value ‖ bundle id DER); checking it binds a
/// receipt to the device that sent it.
public struct DeviceIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The raw identifier bytes, as hashed.
    public let bytes: [UInt8]

    /// Wraps raw identifier bytes (e.g. a 6-byte MAC address).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Parses the forms a device identifier is written in, upper or lower case; `nil` for anything else:
    /// - iOS, 16 bytes: 32 hex digits (`e618109862dd433fbb94675d3815d263`) or a UUID string
    ///   (`E6181098-62DD-433F-BB94-675D3815D263`);
    /// - macOS, the 6-byte MAC address: 12 hex digits (`6c4008b5945e`), or six two-digit groups separated
    ///   by colons (`6c:40:08:b5:94:5e`) or by hyphens (`6C-40-08-B5-94-5E`), one separator throughout.
    public init?(_ text: String) {
        var hex = Array(text.utf8)
        switch hex.count {
        case 36:
            guard Self.separated(hex, by: UInt8(ascii: "-"), at: Self.uuidSeparators) else { return nil }
            hex.removeAll { $0 == UInt8(ascii: "-") }
        case 17:
            // The first separator decides; every other position must hold the same one.
            let separator = hex[2]
            guard separator == UInt8(ascii: ":") || separator == UInt8(ascii: "-"),
                Self.separated(hex, by: separator, at: Self.macSeparators)
            else { return nil }
            hex.removeAll { $0 == separator }
        default:
            break
        }
        guard hex.count == 32 || hex.count == 12, case .success(let bytes) = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// Where a UUID string has its hyphens (8-4-4-4-12 digits).
    static let uuidSeparators = [8, 13, 18, 23]
    /// Where `aa:bb:cc:dd:ee:ff` has its separators.
    static let macSeparators = [2, 5, 8, 11, 14]

    /// `true` when `text` holds `separator` at exactly `positions` and nowhere else; the digits themselves are
    /// checked by the hex decoder afterwards.
    static func separated(_ text: [UInt8], by separator: UInt8, at positions: [Int]) -> Bool {
        text.indices.allSatisfy { index in (text[index] == separator) == positions.contains(index) }
    }

    /// Lower-case hex.
    public var description: String { Hex.encode(bytes) }
}
