import BER
internal import COpenSSL

/// An error from the crypto layer: an OpenSSL call failed or was handed input it cannot use.
///
/// `code` is stable and compared for equality; `reason` says what happened in words, and for
/// OpenSSL failures includes the function name and OpenSSL's drained error queue.
package struct CryptoError: CodedError {
    /// A stable identifier of the kind of failure.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case openSSLCallFailed = "crypto.openssl_call_failed"
            case invalidKey = "crypto.invalid_key"
            case invalidCertificate = "crypto.invalid_certificate"
            case unsupportedAlgorithm = "crypto.unsupported_algorithm"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// An OpenSSL call returned a failure value.
        package static let openSSLCallFailed = Code(.openSSLCallFailed)
        /// Key bytes could not be parsed as a key of a supported type.
        package static let invalidKey = Code(.invalidKey)
        /// Certificate bytes could not be parsed.
        package static let invalidCertificate = Code(.invalidCertificate)
        /// The algorithm is not one this layer implements.
        package static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)

        /// The code as a dotted string, e.g. `crypto.invalid_key`.
        package var description: String { kind.rawValue }
    }

    package let code: Code
    package let reason: String
    package let file: String
    package let line: UInt

    init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// Builds an error for a failed OpenSSL call and drains OpenSSL's thread-local error queue into it,
    /// so a later call never sees a stale error.
    static func openSSL(
        _ function: String, code: Code = .openSSLCallFailed, file: String = #fileID, line: UInt = #line
    ) -> CryptoError {
        CryptoError(code, "\(function) failed: \(drainErrorQueue())", file: file, line: line)
    }

    /// Empties OpenSSL's error queue and returns its entries joined, or "no OpenSSL error queued".
    static func drainErrorQueue() -> String {
        var messages: [String] = []
        while true {
            let packed = ERR_get_error()
            if packed == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(packed, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error queued" : messages.joined(separator: "; ")
    }
}

/// Funnels every fallible OpenSSL call through one place: a positive `Int32` is success, anything else
/// becomes a ``CryptoError`` naming the function and carrying the error queue.
@discardableResult
func openSSLCheck(
    _ result: Int32, _ function: String, code: CryptoError.Code = .openSSLCallFailed,
    file: String = #fileID, line: UInt = #line
) throws(CryptoError) -> Int32 {
    guard result > 0 else { throw CryptoError.openSSL(function, code: code, file: file, line: line) }
    return result
}

/// The pointer-returning variant of ``openSSLCheck(_:_:file:line:)``: `nil` becomes a ``CryptoError``.
func openSSLCheck<T>(
    _ pointer: T?, _ function: String, code: CryptoError.Code = .openSSLCallFailed,
    file: String = #fileID, line: UInt = #line
) throws(CryptoError) -> T {
    guard let pointer else { throw CryptoError.openSSL(function, code: code, file: file, line: line) }
    return pointer
}
