@_spi(Fuzzing) public import BER

/// `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`
/// (RFC 5280 §4.1.1.2).
public struct AlgorithmIdentifier: Hashable, Sendable, CustomStringConvertible {
    public let algorithm: ASN1ObjectIdentifier
    /// The encoded parameters (often NULL), when present.
    public let parameters: ArraySlice<UInt8>?

    public init(algorithm: ASN1ObjectIdentifier, parameters: ArraySlice<UInt8>? = nil) {
        self.algorithm = algorithm
        self.parameters = parameters
    }

    /// Decodes the SEQUENCE `element`.
    package init(berElement element: BERElement) throws(BERError) {
        try element.expectTag(.sequence)
        var fields = try element.children()
        algorithm = try fields.read(expecting: .objectIdentifier).objectIdentifierValue()
        parameters = try fields.next()?.encoded
        try fields.expectEnd()
    }

    public var description: String { algorithm.description }

    public static func == (lhs: AlgorithmIdentifier, rhs: AlgorithmIdentifier) -> Bool {
        lhs.algorithm == rhs.algorithm
            && lhs.parameters.map(Array.init) == rhs.parameters.map(Array.init)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(algorithm) }
}
