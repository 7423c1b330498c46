@_spi(Fuzzing) import BER

/// Collects `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`
/// and writes them as one DER `SET OF`, sorted by encoding as Apple's payloads are.
///
/// The inner value is DER-encoded inside the OCTET STRING (`docs/receipt-format.md` §3): UTF8String
/// for strings, IA5String for dates, INTEGER for numbers, raw bytes for types 4 and 5.
struct AttributeSetEncoder {
    private(set) var encodedAttributes: [[UInt8]] = []

    /// Version written for typed fields: Apple writes 1 for nearly all of them.
    static let defaultVersion: Int64 = 1

    mutating func raw(_ type: Int64, version: Int64 = defaultVersion, _ value: some Collection<UInt8>) {
        var writer = DERWriter()
        writer.sequence { attribute in
            attribute.integer(type)
            attribute.integer(version)
            attribute.octetString(value)
        }
        encodedAttributes.append(writer.bytes)
    }

    mutating func utf8(_ type: Int64, _ value: String?) {
        guard let value else { return }
        var inner = DERWriter()
        inner.utf8String(value)
        raw(type, inner.bytes)
    }

    mutating func ia5(_ type: Int64, _ value: String?) {
        guard let value else { return }
        var inner = DERWriter()
        inner.ia5String(value)
        raw(type, inner.bytes)
    }

    mutating func integer(_ type: Int64, _ value: Int64?) {
        guard let value else { return }
        var inner = DERWriter()
        inner.integer(value)
        raw(type, inner.bytes)
    }

    mutating func flag(_ type: Int64, _ value: Bool?) {
        integer(type, value.map { $0 ? 1 : 0 })
    }

    mutating func bytes(_ type: Int64, _ value: ByteString?) {
        guard let value else { return }
        raw(type, value.bytes)
    }

    mutating func extras(_ attributes: [RawAttributeDescription]) {
        for attribute in attributes { raw(attribute.type, version: attribute.version, attribute.value.bytes) }
    }

    /// The DER `SET OF` of everything collected.
    func encodedSet() -> [UInt8] {
        var writer = DERWriter(reservingCapacity: encodedAttributes.reduce(8) { $0 + $1.count })
        writer.setOf(sorting: encodedAttributes, lengthForm: .definite)
        return writer.bytes
    }
}
