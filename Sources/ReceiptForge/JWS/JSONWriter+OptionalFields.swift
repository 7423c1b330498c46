@_spi(Fuzzing) import ReceiptModel

extension JSONWriter {
    /// Writes `"name":value` when `value` is present; an absent field is left out, never written as `null`,
    /// as Apple's payloads leave it out.
    mutating func field(_ name: String, ifPresent value: String?) {
        if let value { field(name, value) }
    }

    /// Writes `"name":value` when `value` is present.
    mutating func field(_ name: String, ifPresent value: Int64?) {
        if let value { field(name, value) }
    }

    /// Writes `"name":value` when `value` is present.
    mutating func field(_ name: String, ifPresent value: Bool?) {
        if let value { field(name, value) }
    }
}
