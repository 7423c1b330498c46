import TestSupport
import Testing

/// TestSupport's gate, which spaces out the PostgreSQL tests' migrations: never more inside than its width, every
/// caller served, and a body that throws gives its place back.
@Suite struct AsyncGateTests {
    /// The bodies inside the gate: how many there are and were at most, held there until ``release()``.
    actor Occupancy {
        private(set) var inside = 0
        private(set) var most = 0
        private(set) var arrived = 0
        private var held = true
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func enter() async {
            inside += 1
            arrived += 1
            most = max(most, inside)
            if held { await withCheckedContinuation { waiting.append($0) } }
        }

        func leave() { inside -= 1 }

        /// Lets every body held inside go on, and later ones pass straight through.
        func release() {
            held = false
            for body in waiting { body.resume() }
            waiting = []
        }
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
                        await occupancy.leave()
                        return index
                    }
                }
            }
            // The first two are let in and held there; the other six wait at the gate.
            // (Bounded, so that a gate letting fewer in fails rather than hangs.)
            var turns = 0
            while await occupancy.arrived < 2, turns < 1_000_000 {
                turns += 1
                await Task.yield()
            }
            for _ in 0..<100 { await Task.yield() }
            #expect(await occupancy.arrived == 2)
            #expect(await gate.inside == 2)
            await occupancy.release()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(served.sorted() == Array(0..<8))
        #expect(await occupancy.most == 2)
        #expect(await gate.inside == 0)
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
