@_spi(Fuzzing) import BER

/// A receipt whose eContent is a constructed OCTET STRING nested as deep as the BER reader allows, every level
/// with an indefinite length, around as many empty segments (`04 00`) as fit in the size asked for.
///
/// The reader used to find the end of an indefinite-length element by parsing everything inside it, and did so
/// again at every level it descended (ContentInfo, `[0]`, SignedData, encapContentInfo, `[0]`, then 27 string
/// levels): about 32 scans of every segment before the segment limit refused the string. The reader is now linear
/// in its input (`IndefiniteEnds`), so this measures that it stays so. Nothing is signed; decoding never gets past
/// eContent.
enum NestedIndefiniteReceipt {
    /// Constructed OCTET STRING levels: the innermost sits at depth 31, the deepest whose segments
    /// ``BERLimits/maximumDepth`` (32) still lets the reader open.
    static let stringLevels = 27

    /// About `size` bytes (never more).
    static func bytes(size: Int) -> [UInt8] {
        let skeleton = bytes(segments: 0).count
        return bytes(segments: max(0, (size - skeleton) / 2))
    }

    static func bytes(segments: Int) -> [UInt8] {
        var writer = DERWriter(constructedLengthForm: .indefinite, reservingCapacity: 2 * segments + 256)
        writer.sequence { contentInfo in
            contentInfo.objectIdentifier("1.2.840.113549.1.7.2")  // signedData
            contentInfo.contextSpecific(0) { explicit in
                explicit.sequence { signedData in
                    signedData.integer(1)
                    signedData.set { algorithms in
                        algorithms.sequence(lengthForm: .definite) { algorithm in
                            algorithm.objectIdentifier("2.16.840.1.101.3.4.2.1")  // sha256
                            algorithm.null()
                        }
                    }
                    signedData.sequence { encapsulated in
                        encapsulated.objectIdentifier("1.2.840.113549.1.7.1")  // data
                        encapsulated.contextSpecific(0) { eContent in
                            nest(level: 1, segments: segments, into: &eContent)
                        }
                    }
                    signedData.set { _ in }  // signerInfos
                }
            }
        }
        return writer.bytes
    }

    private static func nest(level: Int, segments: Int, into writer: inout DERWriter) {
        writer.constructed(.octetString) { string in
            if level < stringLevels {
                nest(level: level + 1, segments: segments, into: &string)
            } else {
                for _ in 0..<segments { string.octetString([]) }
            }
        }
    }
}
