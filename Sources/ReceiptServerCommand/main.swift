import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import CMalloc
#endif

// The handlers are async, so without this every request hops from the NIO event loop that read it to Swift
// concurrency's own thread pool and back to write the answer: two cross-thread handoffs per request, on a
// machine whose cores the event loops already use. Installed before any task runs (it must be the first thing
// the process does, from the main thread, once), the event loops run the handlers themselves. The load test in
// BENCHMARKS.md measures the difference. If it cannot be installed, the server runs as before.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

// Request and response buffers of large receipts run to hundreds of kilobytes. By default glibc maps each such
// buffer afresh and unmaps it when freed (and trims its heaps), so every large request paid page faults and page
// clearing: a fifth of the server's CPU for the 79 KB receipt. `receipt_keep_freed_memory` keeps them in the heap
// (BENCHMARKS.md), unless the operator set glibc's own malloc settings.
#if canImport(Glibc)
    receipt_keep_freed_memory()
#endif

// ArgumentParser's asynchronous entry point, reached through a generic over AsyncParsableCommand: from top-level
// code a plain `ReceiptServerCommand.main()` resolves to the synchronous one, which refuses an asynchronous
// command.
func runAsynchronously<Command: AsyncParsableCommand>(_ command: Command.Type) async {
    await command.main(nil)
}
await runAsynchronously(ReceiptServerCommand.self)
