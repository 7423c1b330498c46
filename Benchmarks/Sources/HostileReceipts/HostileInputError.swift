/// Why a hostile input or its ordinary counterpart could not be made. Benchmark tooling only: the message is
/// for the person running it.
public struct HostileInputError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
