/// Lets at most `width` callers run their work at once; the others wait their turn in order, suspended (no thread is
/// held while waiting).
public actor AsyncGate {
    private let width: Int
    /// How many callers' work is running now.
    public private(set) var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// `body`'s result, run once fewer than `width` others are running theirs.
    public nonisolated func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await enter()
        do {
            let value = try await body()
            await leave()
            return value
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async {
        guard inside >= width else {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Passes the place on to the first waiting caller, if any.
    private func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
