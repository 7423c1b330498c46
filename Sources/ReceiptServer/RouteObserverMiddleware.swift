public import Hummingbird
import Logging

/// Wraps the receipt routes: names the route on the request's logger, and once the request is answered or
/// refused, counts it in ``ServerMetrics``.
///
/// The request's logger is Hummingbird's per-request `context.logger`, which already carries the request
/// id Hummingbird gives every request (`hb.request.id`); the handlers' own lines carry it and the route as
/// well.
public struct RouteObserverMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where requests are counted.
    public let metrics: ServerMetrics

    public init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // A monotonic clock for the latency only; no date is read here.
        let started = ContinuousClock.now
        let route = ReceiptRoutes.route(of: request, context: context)
        var context = context
        context.logger[metadataKey: "endpoint"] = .string(route)
        do {
            let response = try await next(request, context)
            finish(
                request, route: route, httpStatus: response.status.code, refusal: nil, since: started, context.logger)
            return response
        } catch let refusal as any RouteRefusal {
            finish(
                request, route: route, httpStatus: refusal.status.code, refusal: refusal, since: started, context.logger
            )
            throw refusal
        } catch {
            // Not one of the routes' refusals: counted with the status Hummingbird will answer it with.
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(request, route: route, httpStatus: status, refusal: nil, since: started, context.logger)
            throw error
        }
    }

    private func finish(
        _ request: Request, route: String, httpStatus: Int, refusal: (any RouteRefusal)?,
        since started: ContinuousClock.Instant, _ logger: Logger
    ) {
        let elapsed = ContinuousClock.now - started
        metrics.recordRequest(route: route, httpStatus: httpStatus, duration: elapsed, refusal: refusal)
    }
}
