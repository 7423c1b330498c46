import ArgumentParser
import NIOCore
import NIOPosix

// The handlers are async, so without this every request hops from the NIO event loop that read it to Swift
// concurrency's own thread pool and back to write the answer: two cross-thread handoffs per request, on a
// machine whose cores the event loops already use. Installed before any task runs (it must be the first thing
// the process does, from the main thread, once), the event loops run the handlers themselves. The load test in
// BENCHMARKS.md measures the difference. If it cannot be installed, the server runs as before.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

// ArgumentParser's asynchronous entry point, reached through a generic over AsyncParsableCommand: from top-level
// code a plain `ReceiptServerCommand.main()` resolves to the synchronous one, which refuses an asynchronous
// command.
func runAsynchronously<Command: AsyncParsableCommand>(_ command: Command.Type) async {
    await command.main(nil)
}
await runAsynchronously(ReceiptServerCommand.self)
