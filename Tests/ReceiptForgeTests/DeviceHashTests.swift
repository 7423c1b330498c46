import BER
import ReceiptForge
import ReceiptModel
import TestSupport
import Testing

/// The forge's device hash (attribute 5) is Apple's: checked against real receipts whose device is known.
@Suite struct DeviceHashTests {
    /// Real receipts with a known device (`../shared/receipts/README.md`): an iOS identifierForVendor and a
    /// Mac's MAC address.
    static let knownDevices: [(receipt: String, device: String)] = [
        ("aprv-purchasingexp-sandbox-2023-02", "e618109862dd433fbb94675d3815d263"),
        ("aprv-mindnodemac-prod-2017", "6c4008b5945e"),
    ]

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage), arguments: knownDevices)
    func forgedHashEqualsApplesForTheSameDevice(receipt name: String, device: String) throws {
        let payload = try AppReceipt(berEncoded: SharedTestData.receiptBytes(name)).payload
        let description = ReceiptDescription(
            bundleID: payload.bundleID,
            opaqueValue: ByteString(Array(try #require(payload.opaqueValue))))
        let hash = try description.deviceHash(for: try ByteString(hex: device).bytes)
        #expect(hash.bytes == Array(try #require(payload.sha1Hash)))
    }

    @Test func bindingToAMacWritesTheHashOfItsSixBytes() throws {
        var description = ReceiptDescription(
            bundleID: "org.example.receiptforge.sample", opaqueValue: ByteString([0x5C, 0x2F, 0x3E, 0x0A]))
        let mac: [UInt8] = [0x6C, 0x40, 0x08, 0xB5, 0x94, 0x5E]
        try description.bind(toDevice: mac)
        #expect(description.sha1Hash == (try description.deviceHash(for: mac)))
        #expect(description.sha1Hash?.bytes.count == 20)
        #expect(description.sha1Hash != (try description.deviceHash(for: mac + [0x00])))
    }

    @Test(arguments: [
        ReceiptDescription(bundleID: "org.example.app"), ReceiptDescription(opaqueValue: ByteString([1])),
    ])
    func aHashNeedsTheOpaqueValueAndTheBundleID(description: ReceiptDescription) {
        let error = #expect(throws: ForgeError.self) { try description.deviceHash(for: [1, 2, 3, 4, 5, 6]) }
        #expect(error?.code == .invalidRequest)
    }
}
