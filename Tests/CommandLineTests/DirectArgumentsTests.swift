import ArgumentParser
import TestSupport
import Testing

@testable import VerifyLocal

/// `verify-local` reads an ordinary run's arguments itself (``DirectArguments``) and leaves the rest to
/// ArgumentParser. Whenever it takes a list, the command must be the one ArgumentParser makes of it, every property
/// set; so the help, the usage errors and their exit status stay ArgumentParser's.
struct DirectArgumentsTests {
    /// The commands the README, the benchmarks and the tests run.
    static let ordinary: [[String]] = [
        ["fixtures/valid-sha256.receipt"],
        ["--format", "json", "--root", "certs/test-root.pem", "corpus"],
        ["--format=json", "--root=certs/test-root.pem", "-j", "2", "a", "-", "b"],
        ["--decode-only", "--jws-kind", "notification", "--format", "text", "body.json"],
        [
            "--roots", "certs", "--root", "a.pem", "--root", "b.der", "--at", "2025-01-01T00:00:00Z", "--allow-xcode",
            "--bundle-id", "x", "--bundle-id", "y", "--environment", "Sandbox", "--min-app-version", "1.2",
            "--device-id", "00:11:22:33:44:55", "--app-apple-id", "12", "--app-apple-id", "+7", "--max-jws-age",
            "60", "r",
        ],
        [
            "--remote", "--remote-url", "http://127.0.0.1:1/v", "--remote-sandbox-url", "http://127.0.0.1:1/s",
            "--password", "secret", "--remote-timeout", "2.5", "--remote-deadline", "1e1", "--current-subscription",
            "--jobs", "3", "r",
        ],
    ]

    @Test(arguments: ordinary)
    func readsOrdinaryRunsAsArgumentParserDoes(arguments: [String]) throws {
        let direct = try #require(DirectArguments.command(from: arguments), "not taken: \(arguments)")
        let parsed = try #require(try VerifyLocal.parseAsRoot(arguments) as? VerifyLocal)
        #expect(String(describing: direct) == String(describing: parsed))
    }

    /// A property the reader does not set reads as ArgumentParser's `*definition*`, and reading it stops the program.
    @Test func setsEveryPropertyOfTheCommand() throws {
        for arguments in [["r"]] + Self.ordinary {
            let command = try #require(DirectArguments.unvalidatedCommand(from: arguments))
            let described = String(describing: command)
            #expect(!described.contains("*definition*"), "\(described)")
        }
    }

    @Test func leavesHelpVersionAndUnusualSpellingsToArgumentParser() {
        let declined: [[String]] = [
            [], [""], ["--help"], ["-h"], ["--version"], ["--", "r"], ["---x", "r"],
            ["--form", "json", "r"], ["-j4", "r"], ["-j=4", "r"], ["--format=", "r"], ["--format"],
            ["--decode-only=true", "r"], ["--decode-only", "--decode-only", "r"],
            ["--format", "json", "--format", "text", "r"], ["--at", "-1", "r"], ["--root=-", "r"],
            ["--jobs", "0", "r"], ["--jws-kind", "receipt", "r"], ["--remote-timeout", "0", "r"],
            ["--decode-only", "--remote", "r"], ["-", "--generate-completion-script", "bash"],
        ]
        for arguments in declined {
            #expect(DirectArguments.command(from: arguments) == nil, "taken: \(arguments)")
        }
    }

    /// Random lists of names, values and inputs, valid and not: the reader takes a list only when ArgumentParser
    /// makes the same command of it.
    @Test func readsGeneratedListsAsArgumentParserDoes() throws {
        var random = SplitMix64(seed: 0x5EED_28)
        var taken = 0
        var declined = 0
        for _ in 0..<500 {
            let arguments = Self.generatedList(using: &random)
            guard let direct = DirectArguments.command(from: arguments) else {
                declined += 1
                continue
            }
            taken += 1
            let parsed = try? VerifyLocal.parseAsRoot(arguments) as? VerifyLocal
            let parsedDescription = parsed.map { String(describing: $0) }
            #expect(parsedDescription == String(describing: direct), "\(arguments)")
        }
        // Both ways out are exercised.
        #expect(taken > 150, "taken \(taken)")
        #expect(declined > 150, "declined \(declined)")
    }

    static let values: [String: [String]] = [
        "--format": ["json", "text"], "--jws-kind": ["transaction", "renewal_info", "app_transaction"],
        "--jobs": ["1", "4", "+2", "1024"], "-j": ["2", "16"], "--root": ["a.pem", "-"], "--roots": ["certs"],
        "--at": ["creation", "now", "2025-01-01T00:00:00Z", "yesterday"], "--bundle-id": ["x", "y.z", "a=b"],
        "--environment": ["Sandbox", "Production", "Moon"], "--min-app-version": ["1.0", "2.x"],
        "--device-id": ["00:11:22:33:44:55", "nope"], "--app-apple-id": ["12", "+3", "9223372036854775807"],
        "--max-jws-age": ["60", "2147483647"], "--remote-url": ["http://127.0.0.1:1/v"],
        "--remote-sandbox-url": ["http://127.0.0.1:1/s"], "--password": ["secret"],
        "--remote-timeout": ["2.5", "10", "1e1", "86400"], "--remote-deadline": ["30", "0.5", "inf"],
    ]
    static let flags = ["--decode-only", "--allow-xcode", "--remote", "--current-subscription"]
    static let strange = [
        "", "-", "--", "-1", "0", "nan", "1e400", "9223372036854775808", "JSON", "--help", "-h", "--version",
        "--unknown", "-x", "---x", "-j4", "--form", "--decode-only=1", "--jobs=", "--format=json", "--at=now",
        "--root=a.pem", "--bundle-id=a=b", "--password=", "--root=-", "notification", "receipt",
        "--generate-completion-script",
    ]
    static let inputs = ["r", "a.receipt", "folder", "-", "x y"]

    static func generatedList(using random: inout SplitMix64) -> [String] {
        func any(_ pool: [String]) -> String { pool.randomElement(using: &random) ?? "" }
        let names = values.keys.sorted()
        var list: [String] = []
        for _ in 0..<Int.random(in: 0..<9, using: &random) {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<5: list.append(any(inputs))
            case 5..<8: list.append(any(flags))
            case 8: list.append(any(strange))
            default:
                let name = any(names)
                list.append(name)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<8: list.append(any(values[name] ?? []))
                case 8: list.append(any(strange))
                default: break
                }
            }
        }
        // Most lists name an input, as a run must.
        if Int.random(in: 0..<5, using: &random) > 0 { list.append(any(inputs)) }
        return list
    }
}
