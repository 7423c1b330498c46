@_spi(Fuzzing) import BER

/// A certificate whose public key is an elliptic-curve point on a curve given by explicit parameters (RFC 3279
/// §2.3.5 `ECParameters`, which RFC 5480 forbids but OpenSSL 3.0 still decodes), with the base point and the key
/// in compressed form.
///
/// `d2i_X509` decodes the key as it parses the certificate, and decompressing a point takes a modular square
/// root (`BN_mod_sqrt`). The field prime here is p = 471 · 2^652 + 1 (661 bits, OpenSSL's largest field; prime),
/// so p − 1 is divisible by 2^652 and Tonelli–Shanks needs on the order of 652² / 2 modular squarings per root:
/// two roots, some 0.2 s of one core, before anything can look at the key. The x-coordinates 5 and 11 are ones
/// for which x³ + 3x + 7 is a square mod p, so each root runs to the end. The signature is junk: nothing gets
/// that far.
enum ExplicitCurveCertificate {
    /// p = 471 · 2^652 + 1, big-endian (83 octets).
    static let prime: [UInt8] = [0x1D, 0x70] + [UInt8](repeating: 0, count: 80) + [0x01]
    /// A group order OpenSSL accepts (at most one bit longer than the field): 2^660 + 12345.
    static let order: [UInt8] = [0x10] + [UInt8](repeating: 0, count: 80) + [0x30, 0x39]

    /// A compressed point (SEC 1 §2.3.3) with x-coordinate `x`.
    static func compressedPoint(x: UInt8) -> [UInt8] {
        [0x02] + [UInt8](repeating: 0, count: prime.count - 1) + [x]
    }

    /// The DER of one such certificate; `serial` tells copies apart.
    static func der(serial: Int64) -> [UInt8] {
        var writer = DERWriter()
        writer.sequence { certificate in
            certificate.sequence { tbs in
                tbs.contextSpecific(0) { version in version.integer(2) }
                tbs.integer(serial)
                sha256WithRSA(&tbs)
                name("Hostile EC Issuer", &tbs)
                tbs.sequence { validity in
                    validity.primitive(.utcTime, content: Array("250101000000Z".utf8))
                    validity.primitive(.utcTime, content: Array("991231235959Z".utf8))
                }
                name("Hostile EC \(serial)", &tbs)
                tbs.sequence { spki in
                    spki.sequence { algorithm in
                        algorithm.objectIdentifier("1.2.840.10045.2.1")  // id-ecPublicKey
                        algorithm.sequence { parameters in  // ECParameters
                            parameters.integer(1)
                            parameters.sequence { field in
                                field.objectIdentifier("1.2.840.10045.1.1")  // prime-field
                                field.integer(unsignedBigEndian: prime)
                            }
                            parameters.sequence { curve in
                                curve.octetString([3])  // a
                                curve.octetString([7])  // b
                            }
                            parameters.octetString(compressedPoint(x: 5))  // base point
                            parameters.integer(unsignedBigEndian: order)
                        }
                    }
                    spki.primitive(.bitString, content: [0] + compressedPoint(x: 11))
                }
            }
            sha256WithRSA(&certificate)
            certificate.primitive(.bitString, content: [0] + [UInt8](repeating: 0x5A, count: 16))
        }
        return writer.bytes
    }

    private static func sha256WithRSA(_ writer: inout DERWriter) {
        writer.sequence { algorithm in
            algorithm.objectIdentifier("1.2.840.113549.1.1.11")
            algorithm.null()
        }
    }

    private static func name(_ commonName: String, _ writer: inout DERWriter) {
        writer.sequence { name in
            name.set { rdn in
                rdn.sequence { attribute in
                    attribute.objectIdentifier("2.5.4.3")
                    attribute.utf8String(commonName)
                }
            }
        }
    }
}
