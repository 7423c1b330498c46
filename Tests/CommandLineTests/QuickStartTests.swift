import Foundation
import TestSupport
import Testing

/// The README's quick start succeeds as shown: its first command, run exactly as written from the repository's
/// root, exits 0 and prints the output the README shows. A change to the fixtures, the reports or the README that
/// breaks one of them fails here.
@Suite(.timeLimit(.minutes(1)))
struct QuickStartTests {
    static let commandMarker =
        "<!-- quick start: the main job (QuickStartTests runs it and compares the output shown below) -->"
    static let outputMarker = "<!-- quick start: its output -->"
    static let swiftRun = ["swift", "run", "verify-local"]

    @Test func theReadmesFirstCommandExitsZeroWithTheOutputShown() async throws {
        let root = SharedTestData.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let command = try #require(Self.codeBlock(after: Self.commandMarker, in: readme), "no command block")
        let shown = try #require(Self.codeBlock(after: Self.outputMarker, in: readme), "no output block")
        try #require(command.count == 1, "the quick start's first block is one command")
        let words = command[0].split(separator: " ").map(String.init)
        try #require(Array(words.prefix(3)) == Self.swiftRun, "it runs verify-local: \(command[0])")

        let outcome = try await CommandRunner("verify-local").run(Array(words.dropFirst(3)), in: root)
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        // The README shows the output without its final blank line.
        let printed = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(printed.reversed().drop { $0.isEmpty }.reversed()) == shown)
    }

    @Test func aBlockIsFoundOnlyRightAfterItsMarker() {
        let text = "intro\n<!-- m -->\n```\nline one\n\nline two\n```\nafter\n"
        #expect(Self.codeBlock(after: "<!-- m -->", in: text) == ["line one", "", "line two"])
        #expect(Self.codeBlock(after: "<!-- other -->", in: text) == nil)
        #expect(Self.codeBlock(after: "<!-- m -->", in: "<!-- m -->\ntext\n```\nx\n```\n") == nil)
        #expect(Self.codeBlock(after: "<!-- m -->", in: "<!-- m -->\n```\nnever closed\n") == nil)
        // The library example's block is a ```swift one (LibraryExampleTests): only that fence opens it.
        let swift = "<!-- m -->\n```swift\nlet a = 1\n```\n"
        #expect(MarkdownCodeBlock.lines(after: "<!-- m -->", fence: "```swift", in: swift) == ["let a = 1"])
        #expect(MarkdownCodeBlock.lines(after: "<!-- m -->", fence: "```", in: swift) == nil)
    }

    /// The lines of the plain ``` block on the line right after `marker`, without its fences; `nil` when the
    /// marker is missing, is not followed at once by a fence, or the block is never closed.
    static func codeBlock(after marker: String, in text: String) -> [String]? {
        MarkdownCodeBlock.lines(after: marker, fence: "```", in: text)
    }
}
