/// Code blocks of the README that tests run or compare, found by the HTML comment marking them.
public enum MarkdownCodeBlock {
    /// The lines of the block that opens with `fence` (```` ``` ```` or ```` ```swift ````) on the line right after
    /// `marker`, without its fences; `nil` when the marker is missing, is not followed at once by that fence, or
    /// the block is never closed.
    public static func lines(after marker: String, fence: String, in text: String) -> [String]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let markerLine = lines.firstIndex(of: marker), markerLine + 1 < lines.count,
            lines[markerLine + 1] == fence
        else { return nil }
        let body = lines[(markerLine + 2)...]
        guard let end = body.firstIndex(of: "```") else { return nil }
        return Array(body[..<end])
    }
}
