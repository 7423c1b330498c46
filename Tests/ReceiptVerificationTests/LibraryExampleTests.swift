import Foundation
import TestSupport
import Testing

/// The README's "Use it as a library" example and `Examples/verify-receipt/Sources/verify-receipt/main.swift` are
/// the same text: users copy the README, CI builds and runs the package, so one may not change without the other.
@Suite(.timeLimit(.minutes(1)))
struct LibraryExampleTests {
    static let mainSwiftPath = "Examples/verify-receipt/Sources/verify-receipt/main.swift"

    @Test func theReadmeExampleIsTheExamplePackagesMainSwift() throws {
        let root = SharedTestData.packageRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let mainSwift = try String(contentsOf: root.appendingPathComponent(Self.mainSwiftPath), encoding: .utf8)
        guard let block = Self.codeBlock(after: "<!-- \(Self.mainSwiftPath) -->", in: readme) else {
            Issue.record("README.md has no ```swift block right after the line <!-- \(Self.mainSwiftPath) -->")
            return
        }
        let file = mainSwift.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let expected = file.last == "" ? Array(file.dropLast()) : file
        guard block != expected else { return }
        let common = min(block.count, expected.count)
        let line = (0..<common).first { block[$0] != expected[$0] } ?? common
        Issue.record(
            """
            README.md's example differs from \(Self.mainSwiftPath) at line \(line + 1) of the block:
              README: \(line < block.count ? block[line] : "(the block ends)")
              main:   \(line < expected.count ? expected[line] : "(the file ends)")
            """)
    }

    /// The ```swift block right after `marker` (``MarkdownCodeBlock``, tested in QuickStartTests).
    static func codeBlock(after marker: String, in text: String) -> [String]? {
        MarkdownCodeBlock.lines(after: marker, fence: "```swift", in: text)
    }
}
