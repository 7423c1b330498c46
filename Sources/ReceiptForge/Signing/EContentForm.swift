/// How the receipt payload sits in `encapContentInfo.eContent` (RFC 5652 §5.2).
///
/// In every form the signature's digest covers exactly the payload bytes, since a constructed
/// OCTET STRING's value is its segments joined (X.690 §8.7.3).
public enum EContentForm: Sendable, Hashable {
    /// One primitive OCTET STRING, as in App Store receipts.
    case primitive
    /// A constructed OCTET STRING holding one primitive OCTET STRING, as in Xcode StoreKit Testing
    /// receipts (the "double OCTET STRING").
    case xcodeWrapped
    /// A constructed OCTET STRING made of primitive segments of at most this many bytes.
    case segmented(maximumSegmentLength: Int)
}
