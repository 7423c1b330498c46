import Foundation
import Glibc
import Logging
import ReceiptServer
import Testing

/// The server's log handler and its sink, writing into a file the test reads: the line format, what waits for a
/// flush and what does not, and lines from many threads at once arriving whole.
@Suite struct BufferedLogHandlerTests {
    /// A temporary file a sink writes to; `read()` takes what was written since the last read.
    final class Output {
        let path: String
        let writeEnd: Int32
        private var offset: off_t = 0

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)").path
            writeEnd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            try #require(writeEnd >= 0)
        }

        func read() -> String {
            guard let bytes = FileManager.default.contents(atPath: path) else { return "" }
            let new = bytes.dropFirst(Int(offset))
            offset += off_t(new.count)
            return String(decoding: new, as: UTF8.self)
        }

        deinit {
            close(writeEnd)
            unlink(path)
        }
    }

    static func logger(_ sink: LogSink, level: Logger.Level = .info) -> Logger {
        Logger(label: "receipt-server") { label in BufferedLogHandler(label: label, level: level, sink: sink) }
    }

    @Test func aLineReadsAsStreamLogHandlerWritesIt() throws {
        let output = try Output()
        let sink = LogSink(fileDescriptor: output.writeEnd)
        var logger = Self.logger(sink)
        logger[metadataKey: "hb.request.id"] = "r1"
        logger.info("request", metadata: ["http_status": "200", "endpoint": "/verifyReceipt", "list": ["a", "b"]])
        sink.flush()
        let line = output.read()
        let pattern = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000 info receipt-server: (.*) \[(.*)\] request\n$/#
        let match = try #require(line.wholeMatch(of: pattern), "\(line)")
        #expect(match.1 == "endpoint=/verifyReceipt hb.request.id=r1 http_status=200 list=[\"a\", \"b\"]")
        #expect(match.2 == "ReceiptServerTests")
    }

    @Test func infoWaitsForAFlushAndAWarningTakesEverythingBeforeItAtOnce() throws {
        let output = try Output()
        let sink = LogSink(fileDescriptor: output.writeEnd)
        let logger = Self.logger(sink)
        logger.debug("below the level")
        logger.info("first")
        // The background flush runs every 100 ms: read at once, nothing is there yet (if this ever races with it,
        // the assertion below still holds, so only this read is allowed to see either).
        let early = output.read()
        logger.warning("second")
        let lines = (early + output.read()).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("] first") == true)
        #expect(lines.last?.contains(" warning receipt-server: [") == true)
        #expect(!lines.contains { $0.contains("below the level") })
    }

    @Test func linesFromManyThreadsArriveWhole() async throws {
        let output = try Output()
        let sink = LogSink(fileDescriptor: output.writeEnd)
        let threads = 8
        let perThread = 500
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    let logger = Self.logger(sink)
                    for index in 0..<perThread {
                        logger.info("line", metadata: ["thread": "\(thread)", "index": "\(index)"])
                    }
                }
            }
        }
        sink.flush()
        let lines = output.read().split(separator: "\n")
        #expect(lines.count == threads * perThread)
        var seen = Set<String>()
        for line in lines {
            let match = line.firstMatch(of: #/: index=(\d+) thread=(\d+) \[ReceiptServerTests\] line$/#)
            if let match { seen.insert("\(match.2)/\(match.1)") }
        }
        #expect(seen.count == threads * perThread, "every line whole and distinct")
    }

    @Test func timestampsAreUTCToTheSecond() {
        #expect(String(decoding: LogSink.timestamp(0), as: UTF8.self) == "1970-01-01T00:00:00+0000")
        #expect(String(decoding: LogSink.timestamp(1_764_129_599), as: UTF8.self) == "2025-11-26T03:59:59+0000")
    }
}
