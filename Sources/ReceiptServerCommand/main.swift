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
// clearing: a fifth of the server's CPU for the 79 KB receipt. Keeping blocks up to 4 MiB in the heap, and up to
// 64 MiB of freed memory mapped, removes that (BENCHMARKS.md); the cost is that the process keeps its peak heap.
// An operator's own malloc settings (GLIBC_TUNABLES, MALLOC_*_THRESHOLD_) win.
#if canImport(Glibc)
    let environment = ProcessInfo.processInfo.environment
    if environment["GLIBC_TUNABLES"] == nil && environment["MALLOC_MMAP_THRESHOLD_"] == nil
        && environment["MALLOC_TRIM_THRESHOLD_"] == nil
    {
        mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024)
        mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024)
    }
#endif

// ArgumentParser's asynchronous entry point, reached through a generic over AsyncParsableCommand: from top-level
// code a plain `ReceiptServerCommand.main()` resolves to the synchronous one, which refuses an asynchronous
// command.
func runAsynchronously<Command: AsyncParsableCommand>(_ command: Command.Type) async {
    await command.main(nil)
}
await runAsynchronously(ReceiptServerCommand.self)
