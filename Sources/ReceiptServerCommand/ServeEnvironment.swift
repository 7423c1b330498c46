import ArgumentParser
import Foundation
import ReceiptRemote

/// The environment variables `receipt-server serve` reads, and how a flag and its variable combine: a flag wins,
/// an empty variable counts as unset, and a value the server cannot use is a usage error (exit 64) naming both.
struct ServeEnvironment {
    let values: [String: String]

    init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The variable's value; `nil` when unset or empty.
    func text(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// `1`, `true` or `yes` (any case).
    func flag(_ name: String) -> Bool { ["1", "true", "yes"].contains(text(name)?.lowercased() ?? "") }

    /// The flags when any were given, else the variable split on `separator` (empty parts dropped).
    func list(_ flags: [String], _ name: String, separator: Character = ",") -> [String] {
        flags.isEmpty ? (text(name)?.split(separator: separator).map(String.init) ?? []) : flags
    }

    func number<T: LosslessStringConvertible>(_ flag: T?, _ name: String, default value: T) throws -> T {
        if let flag { return flag }
        guard let text = text(name) else { return value }
        guard let parsed = T(text) else { throw ValidationError("\(name) must be a number, not \(text)") }
        return parsed
    }

    func seconds(_ flag: Double?, _ option: String, _ name: String, default value: Double) throws -> Duration {
        let seconds = try number(flag, name, default: value)
        guard let duration = Duration(configuredSeconds: seconds) else {
            throw ValidationError(
                "\(option) [\(name)] takes a positive number of seconds, at most \(Int(Duration.longestConfiguredSeconds))"
            )
        }
        return duration
    }
}
