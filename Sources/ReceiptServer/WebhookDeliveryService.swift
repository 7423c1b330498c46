public import ReceiptWebhooks
public import ServiceLifecycle

/// The webhook deliverer as one of the server's services: it runs beside the routes (never in a request's way) from
/// start to shutdown. A graceful shutdown cancels it: attempts in flight are left to their leases, which another
/// replica (or the next start) takes over.
public struct WebhookDeliveryService: Service {
    public let deliverer: WebhookDeliverer

    public init(deliverer: WebhookDeliverer) {
        self.deliverer = deliverer
    }

    public func run() async {
        await cancelWhenGracefulShutdown { await deliverer.run() }
    }
}
