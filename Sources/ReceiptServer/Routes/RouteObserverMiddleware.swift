package import Hummingbird
package import Logging

/// Wraps the receipt routes: names the route on the request's logger, and once the request is answered or
/// refused, writes one access-log line and counts the request in ``ServerMetrics``.
///
/// The request's logger is Hummingbird's per-request `context.logger`, which already carries the request
/// id Hummingbird gives every request (`hb.request.id`); the handlers' own lines carry it and the route as
/// well. The access line is at ``accessLogLevel`` (`info` by default: one line per request at the server's default
/// level, written through ``BufferedLogHandler`` so that it costs little). It names the method, the route's path
/// pattern, the HTTP status, the time taken in milliseconds and, for a refusal, its code; never the URI's query, a
/// header or a byte of the body, where receipts and secrets travel.
package struct RouteObserverMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where requests are counted.
    package let metrics: ServerMetrics
    /// The level of the one access-log line per request.
    package let accessLogLevel: Logger.Level

    package init(metrics: ServerMetrics, accessLogLevel: Logger.Level = .info) {
        self.metrics = metrics
        self.accessLogLevel = accessLogLevel
    }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // A monotonic clock for the latency only; no date is read here.
        let started = ContinuousClock.now
        let route = ReceiptRoutes.route(of: request, context: context)
        var context = context
        // Setting metadata re-renders the handler's metadata text (swift-log's StreamLogHandler), a cost per
        // request measured in the load test; the handlers log only at debug, so the route is attached only
        // when such lines can be written (the access line names it itself).
        if context.logger.logLevel <= .debug { context.logger[metadataKey: "endpoint"] = .string(route) }
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // A refusal (or any other error) is answered by Hummingbird's router with the status it carries.
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(
                request, route: route, httpStatus: status, refusal: error as? any RouteRefusal, started, context.logger)
            throw error
        }
        finish(request, route: route, httpStatus: response.status.code, refusal: nil, started, context.logger)
        return response
    }

    private func finish(
        _ request: Request, route: String, httpStatus: Int, refusal: (any RouteRefusal)?,
        _ started: ContinuousClock.Instant, _ logger: Logger
    ) {
        let elapsed = ContinuousClock.now - started
        metrics.recordRequest(route: route, httpStatus: httpStatus, duration: elapsed, refusal: refusal)
        guard logger.logLevel <= accessLogLevel else { return }
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "http_status": "\(httpStatus)",
            "duration": .string(Self.milliseconds(elapsed)),
            "endpoint": .string(route),
        ]
        if let refusal {
            metadata["refusal"] = .string(refusal.code.description)
            if let status = refusal.verifyReceiptStatus { metadata["status"] = "\(status)" }
        }
        logger.log(level: accessLogLevel, "request", metadata: metadata)
    }

    /// `12.345ms`: the duration in milliseconds with three decimals, by integer arithmetic (no floating-point
    /// formatting per request).
    package static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds) &* 1_000_000 &+ max(0, attoseconds) / 1_000_000_000_000
        let fraction = String(microseconds % 1000)
        return "\(microseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "ms"
    }
}
