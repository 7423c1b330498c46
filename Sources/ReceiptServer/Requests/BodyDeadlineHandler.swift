package import NIOCore
package import NIOHTTPTypes

/// Bounds the time a request's body takes to arrive, from its head to its end as the connection reads them.
///
/// When a body is late, the connection's inbound stream fails with ``Exceeded`` and the connection stops reading:
/// ``BodyReader`` answers the request it was reading with 408 (`server.body_timeout`, `Connection: close`), and the
/// connection closes once that answer is written, since what the client sends next can no longer be told apart from
/// the late body. Without the input closed, a client could hold the half-closed connection open by writing to it.
///
/// One timer per connection, on its own event loop, and only while requests arrive: a request's head notes the time
/// (and sets the timer when none is set), its end clears the note. When the timer fires it fails the body noted, if
/// that one is late, or is set again for its deadline; with nothing noted it stays unset until the next head. Under
/// load a connection's timer thus fires about once per timeout, not once per request, and a request costs a reading of
/// the event loop's clock.
///
/// The clock measures the client, not the handlers: a body read in time is not late because its request then waited
/// behind an earlier one on the same connection. A client that pipelines more than the connection buffers (its
/// `NIOAsyncChannel`, with NIO's default of ten parts, stops reading until the handlers catch up) can be read late for
/// that reason; after a whole timeout of that (10 seconds by default) its connection fails like a stalled one.
///
/// One instance per connection: Hummingbird makes the additional handlers for each connection it accepts.
package final class BodyDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler, NIOScheduledCallbackHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart

    /// What the inbound stream fails with when a body is late.
    package struct Exceeded: Error {}

    /// The longest time from a request's head to its end.
    package let timeout: TimeAmount
    private var context: ChannelHandlerContext?
    /// When the head of the request whose end has not been read yet was read.
    private var awaitingEndSince: NIODeadline?
    private var timer: NIOScheduledCallback?

    /// `true` while a timer is set on the event loop (it holds this handler, and through it the connection, until it
    /// fires).
    package var isTimerSet: Bool { timer != nil }

    package init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        self.context = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            let now = context.eventLoop.now
            awaitingEndSince = now
            if timer == nil { arm(at: now + timeout) }
        case .body:
            break
        case .end:
            awaitingEndSince = nil
        }
        context.fireChannelRead(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        disarm()
        awaitingEndSince = nil
        context.fireChannelInactive()
    }

    package func handleScheduledCallback(eventLoop: some EventLoop) {
        timer = nil
        guard let since = awaitingEndSince else { return }
        let deadline = since + timeout
        guard deadline <= eventLoop.now else {
            arm(at: deadline)
            return
        }
        awaitingEndSince = nil
        context?.fireErrorCaught(Exceeded())
        context?.close(mode: .input, promise: nil)
    }

    /// Sets the timer; when the event loop cannot take it (it is shutting down), fails the body now rather than let it
    /// arrive with no deadline.
    private func arm(at deadline: NIODeadline) {
        guard let context else { return }
        do {
            timer = try context.eventLoop.assumeIsolated().scheduleCallback(at: deadline, handler: self)
        } catch {
            awaitingEndSince = nil
            context.fireErrorCaught(error)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}

/// Used on its connection's event loop only.
@available(*, unavailable)
extension BodyDeadlineHandler: Sendable {}
