import ArgumentParser
import ReceiptModel

/// The arguments of an ordinary `verify-local` run, read without ArgumentParser's parser.
///
/// ArgumentParser finds a command's options by reflecting on it (`Mirror`) and instantiates its generic types as it
/// goes; each first use of a type scans every protocol conformance in the program. In a run over one receipt that was
/// a quarter of the CPU, about 4 ms before any receipt could start (BENCHMARKS.md, "Issue 28", step 34).
/// ``VerifyLocal/main()`` asks this reader first. It knows each option and flag of the command by its long name (and
/// `-j`), spelled `--name value` or `--name=value`, and answers only when every argument is one of them with a value
/// its type takes, or an input. For anything else it returns `nil` and ArgumentParser parses the arguments, or
/// explains what is wrong, as it always has: `--help`, `--version`, `--`, an unknown or abbreviated name, a value
/// that is empty or starts with a dash, an option that takes one value (or a flag) given twice, a value its type
/// refuses, arguments the command's `validate()` refuses. So the help, every usage error and its exit status stay
/// ArgumentParser's. DirectArgumentsTests parse generated argument lists both ways and require the same command
/// whenever this reader answers, and every property of the command set.
enum DirectArguments {
    /// The command `arguments` (without the program's name) ask for, or `nil` to leave them to ArgumentParser.
    static func command(from arguments: [String]) -> VerifyLocal? {
        guard var command = unvalidatedCommand(from: arguments) else { return nil }
        do {
            try command.verification.validate()
            try command.remote.validate()
            try command.validate()
        } catch {
            return nil
        }
        return command
    }

    /// ``command(from:)`` before the command's `validate()`, which reads its properties: one the reader left unset
    /// would stop the program there (DirectArgumentsTests look for one here).
    static func unvalidatedCommand(from arguments: [String]) -> VerifyLocal? {
        var read = Values()
        var tokens = Tokens(arguments)
        while let token = tokens.next() {
            switch token {
            case .input(let input): read.inputs.append(input)
            case .named(let name, let attached):
                guard read.take(name, attached: attached, from: &tokens) else { return nil }
            }
        }
        return read.command()
    }

    /// The arguments one by one, with the value of an option taken from the next argument.
    private struct Tokens {
        enum Token {
            case input(String)
            /// An option or flag: its name, and the value after `=` when spelled `--name=value`.
            case named(String, attached: String?)
        }

        private let arguments: [String]
        private var index = 0

        init(_ arguments: [String]) { self.arguments = arguments }

        /// The next argument; an empty one reads as an unknown name, which no option has.
        mutating func next() -> Token? {
            guard index < arguments.count else { return nil }
            let argument = arguments[index]
            index += 1
            if argument == "-" || !argument.hasPrefix("-") && !argument.isEmpty { return .input(argument) }
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                return .named(String(argument[..<equals]), attached: String(argument[argument.index(after: equals)...]))
            }
            return .named(argument, attached: nil)
        }

        /// An option's value: the attached one, else the next argument. `nil` when there is none, or it is empty
        /// or starts with a dash (ArgumentParser reads such an argument as a name, or `-` as a value).
        mutating func value(attached: String?) -> String? {
            let value: String
            if let attached {
                value = attached
            } else {
                guard index < arguments.count else { return nil }
                value = arguments[index]
                index += 1
            }
            return value.isEmpty || value.hasPrefix("-") ? nil : value
        }
    }

    /// What the arguments set, beginning with each property's default.
    private struct Values {
        var given: Set<String> = []
        var inputs: [String] = []
        var format = VerifyLocal.defaultFormat
        var decodeOnly = false
        var jwsKind: JWSPayload.Kind?
        var jobs: Int?
        var roots: [String] = []
        var rootFolders: [String] = []
        var at = VerificationOptions.defaultValidationTime
        var allowXcode = false
        var bundleIDs: [String] = []
        var environment: [String] = []
        var minimumAppVersion: String?
        var deviceID: String?
        var appAppleIDs: [Int64] = []
        var maximumJWSAge: Int64?
        var remote = false
        var productionURL: String?
        var sandboxURL: String?
        var password: String?
        var attemptTimeout = RemoteOptions.defaultAttemptTimeout
        var deadline = RemoteOptions.defaultDeadline
        var currentSubscription = false

        /// Reads the option or flag `name`; `false` when this reader leaves the arguments to ArgumentParser.
        mutating func take(_ name: String, attached: String?, from tokens: inout Tokens) -> Bool {
            // Options that take one value, and flags, are taken once: a second one is left to ArgumentParser.
            guard given.insert(name == "-j" ? "--jobs" : name).inserted || Self.repeatable.contains(name) else {
                return false
            }
            if Self.flags.contains(name) {
                guard attached == nil else { return false }
                switch name {
                case "--decode-only": decodeOnly = true
                case "--allow-xcode": allowXcode = true
                case "--remote": remote = true
                default: currentSubscription = true
                }
                return true
            }
            guard let value = tokens.value(attached: attached) else { return false }
            switch name {
            case "--format":
                guard let value = VerifyLocal.Format(argument: value) else { return false }
                format = value
            case "--jws-kind":
                guard let value = JWSPayload.Kind(rawValue: value) else { return false }
                jwsKind = value
            case "--jobs", "-j":
                guard let value = Int(argument: value) else { return false }
                jobs = value
            case "--root": roots.append(value)
            case "--roots": rootFolders.append(value)
            case "--at": at = value
            case "--bundle-id": bundleIDs.append(value)
            case "--environment": environment.append(value)
            case "--min-app-version": minimumAppVersion = value
            case "--device-id": deviceID = value
            case "--app-apple-id":
                guard let value = Int64(argument: value) else { return false }
                appAppleIDs.append(value)
            case "--max-jws-age":
                guard let value = Int64(argument: value) else { return false }
                maximumJWSAge = value
            case "--remote-url": productionURL = value
            case "--remote-sandbox-url": sandboxURL = value
            case "--password": password = value
            case "--remote-timeout":
                guard let value = Double(argument: value) else { return false }
                attemptTimeout = value
            case "--remote-deadline":
                guard let value = Double(argument: value) else { return false }
                deadline = value
            default: return false
            }
            return true
        }

        static let flags: Set<String> = ["--decode-only", "--allow-xcode", "--remote", "--current-subscription"]
        static let repeatable: Set<String> = [
            "--root", "--roots", "--bundle-id", "--environment", "--app-apple-id",
        ]

        /// The command, every property set.
        func command() -> VerifyLocal {
            var verification = VerificationOptions()
            verification.roots = roots
            verification.rootFolders = rootFolders
            verification.at = at
            verification.allowXcode = allowXcode
            verification.bundleIDs = bundleIDs
            verification.environment = environment
            verification.minimumAppVersion = minimumAppVersion
            verification.deviceID = deviceID
            verification.appAppleIDs = appAppleIDs
            verification.maximumJWSAge = maximumJWSAge
            var remoteOptions = RemoteOptions()
            remoteOptions.remote = remote
            remoteOptions.productionURL = productionURL
            remoteOptions.sandboxURL = sandboxURL
            remoteOptions.password = password
            remoteOptions.attemptTimeout = attemptTimeout
            remoteOptions.deadline = deadline
            remoteOptions.currentSubscription = currentSubscription
            var command = VerifyLocal()
            command.inputs = inputs
            command.format = format
            command.decodeOnly = decodeOnly
            command.jwsKind = jwsKind
            command.jobs = jobs
            command.verification = verification
            command.remote = remoteOptions
            return command
        }
    }
}
