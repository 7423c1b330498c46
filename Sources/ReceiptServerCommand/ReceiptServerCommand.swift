import ArgumentParser

/// `receipt-server`: serves (the default command, ``ServeCommand``) or reads the ledger (``LedgerCommand``).
/// Started from `main.swift`, which first makes SwiftNIO's event loops Swift concurrency's executor.
// The availability makes ArgumentParser pick the asynchronous entry point on every platform.
@available(macOS 10.15, *)
struct ReceiptServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-server",
        abstract: "Serve Apple's verifyReceipt contract, verified locally, and keep a ledger of what it verified.",
        discussion: "Without a command, serves: `receipt-server serve --help` lists the server's flags.",
        subcommands: [
            ServeCommand.self, LedgerCommand.self, SyncCommand.self, NotificationsCommand.self, WebhooksCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)
}
