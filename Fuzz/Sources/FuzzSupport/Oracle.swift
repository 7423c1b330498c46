/// Properties a fuzz target checks beyond "does not trap": a broken one stops the run like a crash, with
/// its message, so libFuzzer saves the input as a finding.
public enum Oracle {
    /// Stops the process with `message` unless `condition` holds.
    public static func check(
        _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        // fatalError, not precondition: its message survives release builds.
        if !condition { fatalError(message(), file: file, line: line) }
    }
}
