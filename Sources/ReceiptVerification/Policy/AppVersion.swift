/// An app version as receipts carry it (attribute 3, iOS 6 `bvrs`), ordered the way Apple orders bundle versions.
///
/// Dot-separated parts, each a number optionally followed by a pre-release stage and its number, as Apple's
/// bundle versions allow: `d` (development) < `a` (alpha) < `b` (beta) < `fc` or `f` (final candidate) < the
/// release itself, so `3.3.1b4` < `3.3.1` < `3.3.1.1`. Missing parts count as 0 (`1.2` == `1.2.0`).
///
/// Text that does not have this shape (`1.9z`, `2.0-beta`, an empty part) is not a version: it parses to `nil`,
/// and a policy that compares versions rejects it rather than guess an order.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// One dot-separated part: `12`, `0b1`, `3fc2`.
    struct Part: Hashable, Comparable {
        var number: UInt64
        /// 0 `d`, 1 `a`, 2 `b`, 3 `fc`/`f`, 4 the release (no stage).
        var stage: Int
        var stageNumber: UInt64

        static let zero = Part(number: 0, stage: releaseStage, stageNumber: 0)
        static let releaseStage = 4

        static func < (lhs: Part, rhs: Part) -> Bool {
            (lhs.number, lhs.stage, lhs.stageNumber) < (rhs.number, rhs.stage, rhs.stageNumber)
        }
    }

    let parts: [Part]
    /// The text it was parsed from.
    public let description: String

    /// The most parts and the most digits per number accepted: versions are short, and this keeps every
    /// number far from overflowing.
    static let maximumParts = 16
    static let maximumDigits = 18

    /// Parses `text`; `nil` when it is not a version of the shape above.
    public init?(_ text: String) {
        let pieces = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard !pieces.isEmpty, pieces.count <= Self.maximumParts else { return nil }
        var parts: [Part] = []
        for piece in pieces {
            guard let part = Self.part(piece) else { return nil }
            parts.append(part)
        }
        // Trailing zero parts do not change the version: drop them so that `1.2` == `1.2.0` for == and hashing.
        while parts.count > 1, parts.last == .zero { parts.removeLast() }
        self.parts = parts
        description = text
    }

    private static func part(_ bytes: Substring.UTF8View.SubSequence) -> Part? {
        var rest = bytes[...]
        guard let number = digits(&rest) else { return nil }
        if rest.isEmpty { return Part(number: number, stage: Part.releaseStage, stageNumber: 0) }
        let stage: Int
        if rest.starts(with: "fc".utf8) {
            stage = 3
            rest = rest.dropFirst(2)
        } else {
            switch rest.first {
            case UInt8(ascii: "d"): stage = 0
            case UInt8(ascii: "a"): stage = 1
            case UInt8(ascii: "b"): stage = 2
            case UInt8(ascii: "f"): stage = 3
            default: return nil
            }
            rest = rest.dropFirst()
        }
        let stageNumber = rest.isEmpty ? 0 : digits(&rest)
        guard let stageNumber, rest.isEmpty else { return nil }
        return Part(number: number, stage: stage, stageNumber: stageNumber)
    }

    /// Reads leading ASCII digits (at least one, at most ``maximumDigits``).
    private static func digits(_ bytes: inout Substring.UTF8View.SubSequence) -> UInt64? {
        var value: UInt64 = 0
        var count = 0
        while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            count += 1
            guard count <= maximumDigits else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
            bytes = bytes.dropFirst()
        }
        return count == 0 ? nil : value
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : .zero
            let right = index < rhs.parts.count ? rhs.parts[index] : .zero
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { lhs.parts == rhs.parts }

    public func hash(into hasher: inout Hasher) { hasher.combine(parts) }
}
