import ArgumentParser

/// `receipt-server`: serves (the default command, ``ServeCommand``) or reads the ledger (``LedgerCommand``).
/// Started from `main.swift`, which first makes SwiftNIO's event loops Swift concurrency's executor.
// The availability makes ArgumentParser pick the asynchronous entry point on every platform.
@available(macOS 10.15, *)
struct ReceiptServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt-server",
        abstract: "Serve Apple's verifyReceipt contract, verified locally, and keep a ledger of what it verified.",
        discussion: """
            Every flag can also come from the environment variable in brackets; a flag wins.
            The shared secret comes only from RECEIPT_SERVER_SHARED_SECRET (never a flag, never logged).
            """,
        subcommands: [ServeCommand.self, LedgerCommand.self],
        defaultSubcommand: ServeCommand.self)
}
