import FuzzSupport
@_spi(Fuzzing) import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel

// fuzz-ledger-input: what the ledger reads from outside the process: the operator's product catalogue
// (`ProductCatalogue(json:)`), a `--ledger` value (`LedgerLocation(parsing:)`), an account id
// (`LedgerEntry.isValidAccount`), an identifier (`LedgerLimits.isIdentifier`), and the audit trail's JSON
// columns as a store reads them back
// (`LedgerColumnJSON.ids(column:)`, `LedgerColumnJSON.conflicts(column:)`, which refuse what the ledger never
// writes).
//
// Checked besides "does not trap": a catalogue that parses, written back as JSON, parses to the same catalogue;
// a location that parses prints (without its password) as text that parses to the same location minus the
// password; id lists and conflicts read from a column and written back read the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzLedgerInput.run(LibFuzzer.bytes(data, size))
    return 0
}

@_cdecl("fuzz_ledger_input_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzLedgerInput {
    static func run(_ bytes: [UInt8]) {
        catalogue(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        location(text)
        Sink.consume(LedgerEntry.isValidAccount(text))
        if LedgerLimits.isIdentifier(text),
            text.utf8.count > LedgerLimits.maximumIdentifierLength || !text.allSatisfy(\.isASCII)
        {
            fatalError("an identifier accepted beyond the ledger's limits")
        }
        columns(text)
    }

    static func catalogue(_ bytes: [UInt8]) {
        let catalogue: ProductCatalogue
        do {
            catalogue = try ProductCatalogue(json: bytes)
        } catch {
            Sink.consume(error.code)
            return
        }
        var writer = JSONWriter()
        writer.beginObject()
        for (product, kind) in catalogue.kinds.sorted(by: { $0.key < $1.key }) { writer.field(product, kind.rawValue) }
        writer.endObject()
        guard let again = try? ProductCatalogue(json: writer.bytes), again == catalogue else {
            fatalError("a catalogue written back does not parse to itself")
        }
    }

    static func location(_ text: String) {
        let location: LedgerLocation
        do {
            location = try LedgerLocation(parsing: text)
        } catch {
            Sink.consume(error.code)
            return
        }
        var unprotected = location
        if case .postgres(var server) = location {
            server.password = nil
            unprotected = .postgres(server)
        }
        // A path or name holding '@', '/', '?' or '%' prints as text that no longer names it; only plain ones round trip.
        guard location.description.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ":/@._-?=".contains($0)) })
        else { return }
        if case .postgres(let server) = location,
            [server.user, server.database, server.host].contains(where: {
                $0.contains(where: { "@/:?=%".contains($0) })
            })
        {
            return
        }
        guard (try? LedgerLocation(parsing: location.description)) == unprotected else {
            fatalError("a location printed does not parse to itself: \(location.description)")
        }
    }

    static func columns(_ text: String) {
        if let ids = try? LedgerColumnJSON.ids(column: text) {
            var writer = JSONWriter()
            LedgerColumnJSON.write(ids: ids, to: &writer)
            guard (try? LedgerColumnJSON.ids(column: writer.string)) == ids else {
                fatalError("an id column does not round trip")
            }
        }
        if let conflicts = try? LedgerColumnJSON.conflicts(column: text) {
            var writer = JSONWriter()
            LedgerColumnJSON.write(conflicts: conflicts, to: &writer)
            guard (try? LedgerColumnJSON.conflicts(column: writer.string)) == conflicts else {
                fatalError("a conflicts column does not round trip")
            }
        }
    }
}
