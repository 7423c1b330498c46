import ArgumentParser

/// `mint-receipt`: mints receipts (`receipts`, the default) and JWS (`jws`) signed by the project's test PKI.
///
/// A thin shell over `ReceiptForge`.
@main
struct MintReceipt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint-receipt",
        abstract: "Mint App Store receipts, iOS 6 receipts and StoreKit 2 / notification JWS with the test PKI.",
        subcommands: [MintReceipts.self, MintJWS.self],
        defaultSubcommand: MintReceipts.self)
}
