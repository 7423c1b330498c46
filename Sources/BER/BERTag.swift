/// The identifier octets of a BER element: class, primitive/constructed, and tag number (X.690 §8.1.2).
@_spi(Fuzzing) public struct BERTag: Hashable, Sendable, CustomStringConvertible {
    /// The two class bits of the identifier octet.
    public enum TagClass: UInt8, Sendable {
        case universal = 0
        case application = 1
        case contextSpecific = 2
        case `private` = 3
    }

    public var tagClass: TagClass
    public var isConstructed: Bool
    public var number: UInt32

    @inlinable
    public init(_ tagClass: TagClass, number: UInt32, constructed: Bool) {
        self.tagClass = tagClass
        self.number = number
        self.isConstructed = constructed
    }

    /// The tag of a one-octet identifier (the low-tag-number form, X.690 §8.1.2.2).
    @inlinable
    init(identifier octet: UInt8) {
        let tagClass: TagClass
        switch octet >> 6 {
        case 0: tagClass = .universal
        case 1: tagClass = .application
        case 2: tagClass = .contextSpecific
        default: tagClass = .private
        }
        self.init(tagClass, number: UInt32(octet & 0x1F), constructed: octet & 0x20 != 0)
    }

    /// A context-specific tag such as `[0]`.
    public static func contextSpecific(_ number: UInt32, constructed: Bool) -> BERTag {
        BERTag(.contextSpecific, number: number, constructed: constructed)
    }

    public static let endOfContents = BERTag(.universal, number: 0, constructed: false)
    public static let boolean = BERTag(.universal, number: 1, constructed: false)
    public static let integer = BERTag(.universal, number: 2, constructed: false)
    public static let bitString = BERTag(.universal, number: 3, constructed: false)
    public static let octetString = BERTag(.universal, number: 4, constructed: false)
    public static let null = BERTag(.universal, number: 5, constructed: false)
    public static let objectIdentifier = BERTag(.universal, number: 6, constructed: false)
    public static let utf8String = BERTag(.universal, number: 12, constructed: false)
    public static let sequence = BERTag(.universal, number: 16, constructed: true)
    public static let set = BERTag(.universal, number: 17, constructed: true)
    public static let printableString = BERTag(.universal, number: 19, constructed: false)
    public static let ia5String = BERTag(.universal, number: 22, constructed: false)
    public static let utcTime = BERTag(.universal, number: 23, constructed: false)
    public static let generalizedTime = BERTag(.universal, number: 24, constructed: false)
    public static let visibleString = BERTag(.universal, number: 26, constructed: false)

    /// The same class and number with the constructed bit set or cleared. BER lets strings come in
    /// either form, so readers compare `primitive` forms.
    @inlinable
    public var primitive: BERTag { BERTag(tagClass, number: number, constructed: false) }

    /// `true` when this tag and `other` differ only in the constructed bit.
    @inlinable
    public func matchesIgnoringForm(_ other: BERTag) -> Bool {
        tagClass == other.tagClass && number == other.number
    }

    public var description: String {
        let form = isConstructed ? "constructed" : "primitive"
        switch tagClass {
        case .universal: return "UNIVERSAL \(number) (\(form))"
        case .application: return "[APPLICATION \(number)] (\(form))"
        case .contextSpecific: return "[\(number)] (\(form))"
        case .private: return "[PRIVATE \(number)] (\(form))"
        }
    }
}
