import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import ReceiptServer
import Testing

/// The body's deadline in the connection's pipeline, on an embedded channel whose clock the test moves.
@Suite struct BodyDeadlineHandlerTests {
    static let timeout = TimeAmount.seconds(10)

    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(BodyDeadlineHandler(timeout: timeout))
        return channel
    }

    static let head = HTTPRequestPart.head(
        HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/verifyReceipt"))
    static let body = HTTPRequestPart.body(ByteBuffer(string: "{\"receipt-data\":"))

    /// `true` when the channel saw ``BodyDeadlineHandler/Exceeded`` go by since it was last asked.
    static func timedOut(_ channel: EmbeddedChannel) -> Bool {
        do {
            try channel.throwIfErrorCaught()
            return false
        } catch {
            return error is BodyDeadlineHandler.Exceeded
        }
    }

    @Test func aBodyThatStopsArrivingFailsAtItsDeadline() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(Self.body)
        channel.embeddedEventLoop.advanceTime(by: Self.timeout - .milliseconds(1))
        #expect(!Self.timedOut(channel))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(Self.timedOut(channel))
        // The parts still reach the request's handler, in order.
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.head)
        #expect(try channel.readInbound(as: HTTPRequestPart.self) == Self.body)
    }

    @Test func aBodyThatEndsInTimeIsNeverLate() throws {
        let channel = try Self.channel()
        for _ in 0..<3 {
            try channel.writeInbound(Self.head)
            channel.embeddedEventLoop.advanceTime(by: Self.timeout - .milliseconds(1))
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 3)
        #expect(!Self.timedOut(channel))
    }

    @Test func eachRequestGetsItsOwnClock() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.head)
        channel.embeddedEventLoop.advanceTime(by: Self.timeout - .seconds(1))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(Self.head)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(!Self.timedOut(channel))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(Self.timedOut(channel))
    }

    /// A connection that ends with a body pending leaves no timer behind holding its handler (and, through it, the
    /// channel) until the deadline, nor one that fires later.
    @Test func anEndedConnectionLeavesNoTimer() throws {
        let handler = BodyDeadlineHandler(timeout: Self.timeout)
        let channel = EmbeddedChannel(handler: handler)
        try channel.writeInbound(Self.head)
        #expect(handler.isTimerSet)
        channel.pipeline.fireChannelInactive()
        #expect(!handler.isTimerSet)
        channel.embeddedEventLoop.advanceTime(by: Self.timeout * 2)
        #expect(!Self.timedOut(channel))
    }

    /// The same when the handler leaves the pipeline.
    @Test func aRemovedHandlerLeavesNoTimer() throws {
        let handler = BodyDeadlineHandler(timeout: Self.timeout)
        let channel = EmbeddedChannel(handler: handler)
        try channel.writeInbound(Self.head)
        #expect(handler.isTimerSet)
        try channel.pipeline.syncOperations.removeHandler(handler).wait()
        #expect(!handler.isTimerSet)
    }

    /// Under a stream of requests the timer is set once, by the first head, not once per request.
    @Test func manyRequestsShareOneTimer() throws {
        let handler = BodyDeadlineHandler(timeout: Self.timeout)
        let channel = EmbeddedChannel(handler: handler)
        for _ in 0..<100 {
            try channel.writeInbound(Self.head)
            try channel.writeInbound(HTTPRequestPart.end(nil))
            channel.embeddedEventLoop.advanceTime(by: .milliseconds(50))
        }
        // Five seconds in, the first timer (set at the first head) has not fired; after it fires with nothing pending,
        // none is set until the next head.
        #expect(handler.isTimerSet)
        channel.embeddedEventLoop.advanceTime(by: Self.timeout)
        #expect(!handler.isTimerSet)
        #expect(!Self.timedOut(channel))
    }
}
