import ReceiptModel

/// The operator's product kinds (`--products FILE`): `{"<product id>": "consumable" | "non_consumable" |
/// "auto_renewable" | "non_renewing"}`. Receipts often omit the product type; the catalogue fills it in and
/// wins over what a receipt says.
public struct ProductCatalogue: Sendable, Hashable {
    public var kinds: [String: ProductKind]

    public init(kinds: [String: ProductKind] = [:]) { self.kinds = kinds }

    /// The largest catalogue file read.
    public static let maximumSize = 4 * 1024 * 1024

    /// Reads a catalogue file's bytes.
    /// - Throws: ``LedgerError`` `ledger.invalid_catalogue`: not one JSON object, a value that is not one of the
    ///   four kinds, a duplicate product id, or more than ``maximumSize`` bytes.
    public init(json bytes: [UInt8]) throws(LedgerError) {
        guard bytes.count <= Self.maximumSize else {
            throw LedgerError(
                .invalidCatalogue, "the catalogue is \(bytes.count) bytes; the limit is \(Self.maximumSize)")
        }
        var reader = JSONReader(bytes, maximumDepth: 2)
        let document: JSONValue
        do { document = try reader.document() } catch {
            throw LedgerError(.invalidCatalogue, "the catalogue is not JSON: \(error.reason)")
        }
        guard let object = document.objectValue else {
            throw LedgerError(.invalidCatalogue, "the catalogue is a JSON object of product ids to kinds")
        }
        var kinds: [String: ProductKind] = [:]
        for member in object.members {
            guard let name = member.value.stringValue, let kind = ProductKind(rawValue: name), kind != .unknown else {
                throw LedgerError(
                    .invalidCatalogue,
                    "product \(member.key): the kind is consumable, non_consumable, auto_renewable or non_renewing")
            }
            guard kinds.updateValue(kind, forKey: member.key) == nil else {
                throw LedgerError(.invalidCatalogue, "product \(member.key) is listed twice")
            }
        }
        self.kinds = kinds
    }

    /// A digest of the catalogue's contents (FNV-1a over its sorted entries): catalogues with the same kinds have
    /// the same one. Part of a receipt key whose transactions the catalogue helps derive
    /// (``LedgerReceiptKey/key(receiptSHA256:derivation:account:)``).
    package var fingerprint: String {
        var digest = LedgerReceiptKey.FNV1a()
        for (product, kind) in kinds.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            digest.add(product)
            digest.add(kind.rawValue)
        }
        return digest.hex
    }

    /// The kind of `productID`: the catalogue's, else `reported` (what the receipt said).
    package func kind(of productID: String, reported: ProductKind) -> ProductKind {
        kinds[productID] ?? reported
    }
}
