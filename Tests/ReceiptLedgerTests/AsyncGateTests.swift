import TestSupport
import Testing

/// TestSupport's gate, which spaces out the PostgreSQL tests' migrations: never more inside than its width, every
/// caller served, and a body that throws gives its place back.
@Suite struct AsyncGateTests {
    /// How many bodies are inside at once, and the most there ever were.
    actor Occupancy {
        private(set) var inside = 0
        private(set) var most = 0

        func enter() {
            inside += 1
            most = max(most, inside)
        }

        func leave() { inside -= 1 }
    }

    struct Refused: Error {}

    @Test func atMostItsWidthRunAtOnceAndEveryCallerIsServed() async throws {
        let gate = AsyncGate(width: 2)
        let occupancy = Occupancy()
        let served = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await gate.run {
                        await occupancy.enter()
                        try await Task.sleep(for: .milliseconds(10))  // overlap, not a timing under test
                        await occupancy.leave()
                        return index
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(served.sorted() == Array(0..<8))
        #expect(await occupancy.most == 2)
        #expect(await occupancy.inside == 0)
    }

    @Test func aBodyThatThrowsGivesItsPlaceBack() async throws {
        let gate = AsyncGate(width: 1)
        await #expect(throws: Refused.self) { try await gate.run { () async throws -> Int in throw Refused() } }
        // Required before the next call: with its one place still taken, that call would wait for ever.
        try #require(await gate.inside == 0)
        #expect(try await gate.run { 7 } == 7)
        #expect(await gate.inside == 0)
    }
}
