import ArgumentParser

/// `receipt-server ledger …`: reads the ledger without serving.
@available(macOS 10.15, *)
struct LedgerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger", abstract: "Read the ledger.", subcommands: [LedgerAuditCommand.self])
}
