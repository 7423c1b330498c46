/// Writes DER, or BER with indefinite lengths, into one growing byte array (X.690 §8, §10).
///
/// The receipt forge uses it to mint payloads, `SignedData` and certificates' surroundings with
/// content it chooses. Nested elements are written by closures that receive the same writer, so no
/// intermediate arrays are built: a definite length is patched in once the content is known, and
/// only a length of 128 bytes or more moves the content (once) to make room for its long form.
///
/// ```swift
/// var writer = DERWriter()
/// writer.sequence { inner in
///     inner.integer(1)
///     inner.utf8String("hello")
/// }
/// let der = writer.bytes
/// ```
///
/// It writes what it is told: a `SET OF` is only sorted the way DER requires (X.690 §11.6) when it
/// is written with ``setOf(sorting:lengthForm:)``.
@_spi(Fuzzing) public struct DERWriter: Sendable {
    /// How a constructed element's length is written.
    public enum LengthForm: Sendable, Hashable {
        /// A definite length, as DER requires (X.690 §8.1.3.3–5).
        case definite
        /// `0x80` and end-of-contents octets `00 00` after the content (BER only, X.690 §8.1.3.6).
        case indefinite
    }

    /// Everything written so far.
    public private(set) var bytes: [UInt8]

    /// The length form constructed elements get when a call does not name one. Nested closures share
    /// it, so `DERWriter(constructedLengthForm: .indefinite)` writes every constructed element as BER.
    public var constructedLengthForm: LengthForm

    /// An empty writer.
    ///
    /// - Parameters:
    ///   - constructedLengthForm: the default length form of constructed elements.
    ///   - reservingCapacity: bytes to reserve up front, when the caller knows the rough size.
    public init(constructedLengthForm: LengthForm = .definite, reservingCapacity: Int = 0) {
        self.bytes = []
        self.constructedLengthForm = constructedLengthForm
        if reservingCapacity > 0 { bytes.reserveCapacity(reservingCapacity) }
    }

    // MARK: - Elements

    /// Writes a primitive element: identifier, definite length, content.
    public mutating func primitive(_ tag: BERTag, content: some Collection<UInt8>) {
        appendIdentifier(tag.primitive)
        appendLength(content.count)
        bytes.append(contentsOf: content)
    }

    /// Writes a constructed element whose content is whatever `body` writes into this same writer.
    ///
    /// - Parameters:
    ///   - tag: the element's tag; its constructed bit is set whatever `tag` says.
    ///   - lengthForm: the length form of this element; `nil` uses ``constructedLengthForm``.
    ///   - body: writes the content.
    public mutating func constructed<Failure: Error>(
        _ tag: BERTag, lengthForm: LengthForm? = nil, _ body: (inout DERWriter) throws(Failure) -> Void
    ) throws(Failure) {
        appendIdentifier(BERTag(tag.tagClass, number: tag.number, constructed: true))
        switch lengthForm ?? constructedLengthForm {
        case .indefinite:
            bytes.append(0x80)
            try body(&self)
            bytes.append(contentsOf: [0x00, 0x00])
        case .definite:
            // One placeholder octet: right for short content, widened once for long content.
            let lengthIndex = bytes.count
            bytes.append(0x00)
            try body(&self)
            let length = bytes.count - lengthIndex - 1
            if length < 0x80 {
                bytes[lengthIndex] = UInt8(length)
            } else {
                bytes.replaceSubrange(lengthIndex...lengthIndex, with: Self.lengthOctets(length))
            }
        }
    }

    /// Writes a `SEQUENCE` (X.690 §8.9).
    public mutating func sequence<Failure: Error>(
        lengthForm: LengthForm? = nil, _ body: (inout DERWriter) throws(Failure) -> Void
    ) throws(Failure) {
        try constructed(.sequence, lengthForm: lengthForm, body)
    }

    /// Writes a `SET` or `SET OF` with its elements in the order `body` writes them (X.690 §8.11).
    public mutating func set<Failure: Error>(
        lengthForm: LengthForm? = nil, _ body: (inout DERWriter) throws(Failure) -> Void
    ) throws(Failure) {
        try constructed(.set, lengthForm: lengthForm, body)
    }

    /// Writes a constructed context-specific element `[number]`: an EXPLICIT wrapper, or an IMPLICIT
    /// constructed type such as CMS `certificates [0] IMPLICIT SET OF`.
    public mutating func contextSpecific<Failure: Error>(
        _ number: UInt32, lengthForm: LengthForm? = nil, _ body: (inout DERWriter) throws(Failure) -> Void
    ) throws(Failure) {
        try constructed(.contextSpecific(number, constructed: true), lengthForm: lengthForm, body)
    }

    /// Writes a `SET OF` whose already encoded elements are sorted as DER requires: ascending
    /// octet strings, a shorter one first when it is a prefix of a longer one (X.690 §11.6).
    package mutating func setOf(sorting elements: [[UInt8]], lengthForm: LengthForm? = nil) {
        let sorted = elements.sorted { $0.lexicographicallyPrecedes($1) }
        constructed(.set, lengthForm: lengthForm) { writer in
            for element in sorted { writer.bytes.append(contentsOf: element) }
        }
    }

    /// Appends bytes that are already one or more encoded elements (a certificate, a name).
    public mutating func encoded(_ elements: some Collection<UInt8>) {
        bytes.append(contentsOf: elements)
    }

    // MARK: - Universal types

    /// Writes an `INTEGER` in its minimal two's-complement form (X.690 §8.3).
    public mutating func integer(_ value: Int64) {
        primitive(.integer, content: Self.integerContent(value))
    }

    /// Writes a non-negative `INTEGER` from its big-endian magnitude (a serial number, an RSA
    /// modulus): leading zero octets are dropped and one is added back when the top bit is set.
    public mutating func integer(unsignedBigEndian magnitude: some Collection<UInt8>) {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0x00, at: 0) }
        primitive(.integer, content: content)
    }

    /// Writes a `BOOLEAN`, `FF` for true as DER requires (X.690 §11.1).
    public mutating func boolean(_ value: Bool) {
        primitive(.boolean, content: CollectionOfOne(value ? 0xFF : 0x00))
    }

    /// Writes `NULL` (X.690 §8.8).
    public mutating func null() {
        primitive(.null, content: EmptyCollection())
    }

    /// Writes an `OBJECT IDENTIFIER` (X.690 §8.19).
    public mutating func objectIdentifier(_ identifier: ASN1ObjectIdentifier) {
        primitive(.objectIdentifier, content: identifier.encodedArcs)
    }

    /// Writes an `OBJECT IDENTIFIER` given in dotted form.
    ///
    /// For constants written in source: text that is not an object identifier is a programming
    /// error and stops the program. Build an ``ASN1ObjectIdentifier`` first for text from input.
    public mutating func objectIdentifier(_ dotted: String) {
        guard let identifier = ASN1ObjectIdentifier(dotted) else {
            preconditionFailure("not an object identifier: \(dotted)")
        }
        objectIdentifier(identifier)
    }

    /// Writes a primitive `OCTET STRING` (X.690 §8.7).
    public mutating func octetString(_ content: some Collection<UInt8>) {
        primitive(.octetString, content: content)
    }

    /// Writes a `UTF8String` (X.690 §8.23.10).
    public mutating func utf8String(_ value: String) {
        primitive(.utf8String, content: value.utf8)
    }

    /// Writes an `IA5String`. The string's UTF-8 octets are written as they are; keeping them ASCII
    /// is the caller's business (the forge writes non-ASCII on purpose to make malformed receipts).
    package mutating func ia5String(_ value: String) {
        primitive(.ia5String, content: value.utf8)
    }

    // MARK: - Encoding helpers

    /// The content octets of `value` as a minimal two's-complement `INTEGER`.
    package static func integerContent(_ value: Int64) -> [UInt8] {
        var content: [UInt8] = []
        content.reserveCapacity(8)
        var shift = 56
        while shift >= 0 {
            content.append(UInt8(truncatingIfNeeded: value >> Int64(shift)))
            shift -= 8
        }
        // X.690 §8.3.2: drop a leading octet while it only repeats the sign of the next one.
        var start = 0
        while start < 7 {
            let first = content[start]
            let nextTopBit = content[start + 1] & 0x80
            guard (first == 0x00 && nextTopBit == 0) || (first == 0xFF && nextTopBit != 0) else { break }
            start += 1
        }
        return Array(content[start...])
    }

    /// The length octets of a definite `length`: short form below 128, long form above (X.690 §8.1.3).
    package static func lengthOctets(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.append(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets.reversed()
    }

    private mutating func appendIdentifier(_ tag: BERTag) {
        let leading = tag.tagClass.rawValue << 6 | (tag.isConstructed ? 0x20 : 0x00)
        if tag.number < 31 {
            bytes.append(leading | UInt8(tag.number))
            return
        }
        // X.690 §8.1.2.4: high tag numbers follow in base-128 octets, the last without bit 8.
        bytes.append(leading | 0x1F)
        var groups: [UInt8] = [UInt8(tag.number & 0x7F)]
        var rest = tag.number >> 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(contentsOf: groups.reversed())
    }

    private mutating func appendLength(_ length: Int) {
        if length < 0x80 {
            bytes.append(UInt8(length))
        } else {
            bytes.append(contentsOf: Self.lengthOctets(length))
        }
    }
}
