@_spi(Fuzzing) import BER
import ReceiptForge

/// Receipts made of as many of the smallest elements as the decoder still reads one by one: the SignedData lists
/// at their cap (16 elements), and payloads of about a megabyte of tiny attributes, which no cap counts.
///
/// Every one is the genuine test chain's receipt with its payload changed after signing (what an attacker can do
/// with any real receipt): the chain is the one ordinary traffic caches, the signature fails, and nothing in the
/// payload is short-circuited, because `ReceiptInput` decodes the whole payload before the verifier checks
/// anything.
enum TinyElementReceipt {
    /// `ReceiptAttribute ::= SEQUENCE { type 99, version 1, value '' }`: an undocumented top-level attribute,
    /// 10 bytes, which the fast attribute walk reads and passes over.
    static let unknownAttribute: [UInt8] = [0x30, 0x08, 0x02, 0x01, 0x63, 0x02, 0x01, 0x01, 0x04, 0x00]

    /// The same attribute with an indefinite length (12 bytes): the fast walk hands the rest of the SET to the
    /// general BER reader at the first one.
    static let indefiniteUnknownAttribute: [UInt8] = [
        0x30, 0x80, 0x02, 0x01, 0x63, 0x02, 0x01, 0x01, 0x04, 0x00, 0x00, 0x00,
    ]

    /// `SEQUENCE { type 17, version 1, value SET {} }`: an in-app purchase with no field, 12 bytes, decoded into
    /// an `InAppPurchase` each.
    static let emptyPurchase: [UInt8] = [0x30, 0x0A, 0x02, 0x01, 0x11, 0x02, 0x01, 0x01, 0x04, 0x02, 0x31, 0x00]

    /// `request`'s receipt (which must carry a ``Tamper``) with its payload SET followed by `lead`, then as many
    /// copies of `element` as keep the receipt at most `size` bytes. The signature covers the untampered payload
    /// with the same elements.
    static func padded(
        _ request: MintRequest, pki: TestPKI, size: Int, lead: [UInt8] = [], element: [UInt8]
    ) throws(HostileInputError) -> [UInt8] {
        guard request.tamper != nil, let signed = request.signedReceipt, let carried = request.carriedReceipt else {
            throw HostileInputError("a padded receipt needs an app receipt description and a tamper")
        }
        let options: SignedDataOptions
        do {
            options = try request.signedDataOptions(pki: pki)
        } catch {
            throw HostileInputError("signing options: \(error)")
        }
        let signedBase = try setContent(signed.payloadDER())
        let carriedBase = try setContent(carried.payloadDER())
        func make(_ count: Int) throws(HostileInputError) -> [UInt8] {
            do {
                return try ReceiptMinter.mint(
                    payload: payload(signedBase, lead: lead, element: element, count: count),
                    embeddedPayload: payload(carriedBase, lead: lead, element: element, count: count), options: options)
            } catch {
                throw HostileInputError("minting failed: \(error)")
            }
        }
        let skeleton = try make(0).count
        var count = max(0, (size - skeleton) / element.count)
        var bytes = try make(count)
        // Longer length fields take a few bytes more than the skeleton had.
        while bytes.count > size, count > 0 {
            count -= (bytes.count - size + element.count - 1) / element.count
            bytes = try make(max(0, count))
        }
        return bytes
    }

    /// `receipt` (DER, as minted) with the content of its `certificates [0]` field replaced by `certificates`
    /// (each already encoded), everything else byte for byte.
    static func replacingCertificates(in receipt: [UInt8], with certificates: [[UInt8]]) throws(HostileInputError)
        -> [UInt8]
    {
        let contentType: BERElement
        var fields: [BERElement] = []
        do {
            var top = BERReader(receipt[...])
            let contentInfo = try top.read(expecting: .sequence)
            var contentInfoFields = try contentInfo.children()
            contentType = try contentInfoFields.read(expecting: .objectIdentifier)
            var explicit = try contentInfoFields.read(expecting: .contextSpecific(0, constructed: true)).children()
            var signedData = try explicit.read(expecting: .sequence).children()
            while let field = try signedData.next() { fields.append(field) }
        } catch {
            throw HostileInputError("the minted receipt does not read back: \(error)")
        }
        let certificatesTag = BERTag.contextSpecific(0, constructed: true)
        guard fields.contains(where: { $0.tag == certificatesTag }) else {
            throw HostileInputError("the minted receipt has no certificates field")
        }
        var writer = DERWriter(reservingCapacity: receipt.count + certificates.reduce(0) { $0 + $1.count })
        writer.sequence { contentInfo in
            contentInfo.encoded(contentType.encoded)
            contentInfo.contextSpecific(0) { explicit in
                explicit.sequence { signedData in
                    for field in fields {
                        guard field.tag == certificatesTag else {
                            signedData.encoded(field.encoded)
                            continue
                        }
                        signedData.contextSpecific(0) { set in
                            for certificate in certificates { set.encoded(certificate) }
                        }
                    }
                }
            }
        }
        return writer.bytes
    }

    /// The content of the DER `SET` `payload`.
    private static func setContent(_ payload: [UInt8]) throws(HostileInputError) -> ArraySlice<UInt8> {
        do {
            var reader = BERReader(payload[...])
            let set = try reader.read(expecting: .set)
            try reader.expectEnd()
            return set.content
        } catch {
            throw HostileInputError("the forge's payload does not read back: \(error)")
        }
    }

    /// `SET { base, lead, element × count }` with a definite length.
    private static func payload(_ base: ArraySlice<UInt8>, lead: [UInt8], element: [UInt8], count: Int) -> [UInt8] {
        var writer = DERWriter(reservingCapacity: base.count + lead.count + element.count * count + 8)
        writer.set(lengthForm: .definite) { set in
            set.encoded(base)
            set.encoded(lead)
            for _ in 0..<count { set.encoded(element) }
        }
        return writer.bytes
    }
}
