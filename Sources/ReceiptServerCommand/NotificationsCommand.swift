import ArgumentParser

/// `receipt-server notifications …`: App Store Server Notifications without serving.
@available(macOS 10.15, *)
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "App Store Server Notifications.",
        subcommands: [NotificationBackfillCommand.self])
}
