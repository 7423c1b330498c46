public import ReceiptModel

extension ServerError {
    /// `{"error": {"code": …, "message": …}}`, the body of `/v1/verify`'s refusals.
    public var jsonBody: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.field("code", code.description)
        writer.field("message", reason)
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The HTTP status `/v1/verify` answers this refusal with.
    public var httpStatus: Int {
        switch code {
        case .bodyTooLarge: 413
        case .bodyTimeout: 408
        case .sharedSecretMismatch: 403
        case .unsupportedMediaType: 415
        case .overloaded: 503
        case .invalidConfiguration: 500
        default: 400
        }
    }
}
