extension ReceiptDescription {
    /// The receipt payload: `ReceiptPayload ::= SET OF ReceiptAttribute` in DER, every attribute's
    /// value encoded as Apple encodes it, purchases nested as type 17 attributes.
    ///
    /// This is the `eContent` a minted `SignedData` signs and carries.
    public func payloadDER() -> [UInt8] {
        var set = AttributeSetEncoder()
        set.utf8(0, receiptType)
        set.integer(1, appItemID)
        set.utf8(2, bundleID)
        set.utf8(3, applicationVersion)
        set.bytes(4, opaqueValue)
        set.bytes(5, sha1Hash)
        set.ia5(10, ageRating)
        set.ia5(12, creationDate)
        set.integer(15, downloadID)
        set.integer(16, versionExternalIdentifier)
        set.ia5(18, originalPurchaseDate)
        set.utf8(19, originalApplicationVersion)
        set.ia5(21, expirationDate)
        for purchase in inAppPurchases {
            set.raw(17, purchase.payloadDER())
        }
        set.extras(extraAttributes)
        return set.encodedSet()
    }
}

extension InAppPurchaseDescription {
    /// The value of this purchase's type 17 attribute: a DER `SET OF ReceiptAttribute`.
    public func payloadDER() -> [UInt8] {
        var set = AttributeSetEncoder()
        set.integer(1701, quantity)
        set.utf8(1702, productID)
        set.utf8(1703, transactionID)
        set.ia5(1704, purchaseDate)
        set.utf8(1705, originalTransactionID)
        set.ia5(1706, originalPurchaseDate)
        set.integer(1707, productType)
        set.ia5(1708, expiresDate)
        set.integer(1711, webOrderLineItemID)
        set.ia5(1712, cancellationDate)
        set.flag(1713, isTrialPeriod)
        set.flag(1719, isInIntroOfferPeriod)
        set.utf8(1721, promotionalOfferID)
        set.extras(extraAttributes)
        return set.encodedSet()
    }
}
