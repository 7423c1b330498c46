import ReceiptCrypto
@_spi(Fuzzing) import ReceiptModel

/// Mints compact JWS (RFC 7515 §7.1) as the App Store signs them, under the project's test JWS chain, and the
/// hostile variants of ``JWSHostileVariant``.
///
/// A valid JWS is `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)` with the header
/// `{"alg":"ES256","x5c":[leaf, intermediate, root]}` (each certificate standard base64 DER, RFC 7515 §4.1.6) and an
/// ES256 signature by `test-jws-leaf`'s key. A notification's nested `signedTransactionInfo` and
/// `signedRenewalInfo` are minted first, the same way and always valid, whatever the outer variant.
///
/// ES256 signatures take a random nonce, so every mint gives another signature (and, for notifications, other
/// nested JWS); the header and payload of a transaction or renewal info are the same every time.
package struct JWSMinter: Sendable {
    /// The test PKI holding the JWS certificates (`scripts/make-test-pki --jws`).
    package let pki: TestPKI

    package init(pki: TestPKI) {
        self.pki = pki
    }

    /// Mints `payload` as a valid JWS, or as `variant` of it.
    /// - Throws: ``ForgeError`` when a certificate or key is missing or signing fails.
    package func mint(_ payload: JWSPayloadDescription, variant: JWSHostileVariant? = nil) throws(ForgeError) -> String
    {
        try mint(payloadJSON: payloadJSON(payload), variant: variant)
    }

    /// The payload's JSON text; a notification's nested JWS are minted (valid) on the way.
    package func payloadJSON(_ payload: JWSPayloadDescription) throws(ForgeError) -> [UInt8] {
        switch payload {
        case .transaction(let transaction):
            return transaction.payloadJSON()
        case .renewalInfo(let renewalInfo):
            return renewalInfo.payloadJSON()
        case .notification(let notification):
            let transaction = try notification.data?.transaction.map { (description) throws(ForgeError) in
                try mint(payloadJSON: description.payloadJSON(), variant: nil)
            }
            let renewalInfo = try notification.data?.renewalInfo.map { (description) throws(ForgeError) in
                try mint(payloadJSON: description.payloadJSON(), variant: nil)
            }
            return notification.payloadJSON(signedTransactionInfo: transaction, signedRenewalInfo: renewalInfo)
        case .json(let payload, _):
            return try JSONValue.object(mintingNested(payload)).jsonBytes
        }
    }

    /// `object` with every nested JWS described as an object (under a member naming a JWS's kind) minted, valid, in
    /// place; other members as they are, objects and arrays searched the same way.
    func mintingNested(_ object: JSONObject) throws(ForgeError) -> JSONObject {
        var members: [JSONObject.Member] = []
        for member in object.members {
            members.append(JSONObject.Member(key: member.key, value: try mintingNested(member.value, in: member.key)))
        }
        return JSONObject(members: members)
    }

    private func mintingNested(_ value: JSONValue, in member: String) throws(ForgeError) -> JSONValue {
        switch value {
        case .object(let object):
            let inner = try mintingNested(object)
            guard JWSPayload.Kind(member: member) != nil else { return .object(inner) }
            return .string(try mint(payloadJSON: JSONValue.object(inner).jsonBytes, variant: nil))
        case .array(let elements):
            var minted: [JSONValue] = []
            for element in elements { minted.append(try mintingNested(element, in: member)) }
            return .array(minted)
        default:
            return value
        }
    }

    /// Signs `payloadJSON` as a valid JWS, or as `variant` of it.
    package func mint(payloadJSON: [UInt8], variant: JWSHostileVariant?) throws(ForgeError) -> String {
        let plan = JWSSigningPlan(variant: variant)
        let header = try headerJSON(plan)
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payloadJSON)
        let signature = try sign(Array(signingInput.utf8)[...], plan)
        switch variant {
        case .tamperedPayload:
            return Base64URL.encode(header) + "." + Base64URL.encode(try Self.tampered(payloadJSON)) + "."
                + Base64URL.encode(signature)
        case .twoSegments:
            return signingInput
        case .signatureNotBase64URL:
            return signingInput + "." + Base64.encode(signature)
        default:
            return signingInput + "." + Base64URL.encode(signature)
        }
    }

    /// The body Apple POSTs to a server's notification URL: `{"signedPayload":"<JWS>"}`.
    package static func notificationBody(signedPayload: String) -> [UInt8] {
        var writer = JSONWriter(capacity: signedPayload.utf8.count + 20)
        writer.beginObject()
        writer.field("signedPayload", signedPayload)
        writer.endObject()
        return writer.bytes
    }

    /// The JOSE header: `alg`, then `kid` and `x5c` when the plan has them.
    private func headerJSON(_ plan: JWSSigningPlan) throws(ForgeError) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.field("alg", plan.algorithm)
        writer.field("kid", ifPresent: plan.keyID)
        if let names = plan.certificates {
            writer.key("x5c")
            writer.beginArray()
            for name in names {
                // RFC 7515 §4.1.6: standard base64 (not base64url) of each DER certificate.
                writer.string(Base64.encode(try pki.certificate(named: name).der))
            }
            writer.endArray()
        }
        writer.endObject()
        return writer.bytes
    }

    private func sign(_ signingInput: ArraySlice<UInt8>, _ plan: JWSSigningPlan) throws(ForgeError) -> [UInt8] {
        do {
            switch plan.key {
            case .none:
                return []
            case .hmacOfPublicKey(let name):
                let publicKey = try privateKey(name).subjectPublicKeyInfo()
                return try PrivateKey(hmacSecret: publicKey).signHS256(message: signingInput)
            case .named(let name):
                let key = try privateKey(name)
                switch plan.algorithm {
                case "ES256": return try key.signES256(message: signingInput)
                case "RS256": return try key.signRS256(message: signingInput)
                default: throw ForgeError(.invalidRequest, "no signer for alg \(plan.algorithm)")
                }
            }
        } catch let error as ForgeError {
            throw error
        } catch {
            throw ForgeError(.signingFailed, "cannot sign the JWS (\(plan.algorithm)): \(error)")
        }
    }

    private func privateKey(_ name: String) throws -> PrivateKey {
        let pem = try pki.privateKeyPEM(named: name)
        do {
            return try PrivateKey(pem: pem)
        } catch {
            throw ForgeError(.invalidKey, "cannot read the key \(name): \(error)")
        }
    }

    /// `payload` with its last decimal digit changed (9 becomes 0, any other digit the next): one byte, and the
    /// JSON still decodes.
    static func tampered(_ payload: [UInt8]) throws(ForgeError) -> [UInt8] {
        guard let position = payload.lastIndex(where: { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw ForgeError(.invalidRequest, "the payload has no digit to tamper with")
        }
        var changed = payload
        changed[position] = payload[position] == UInt8(ascii: "9") ? UInt8(ascii: "0") : payload[position] + 1
        return changed
    }
}
