import Foundation

/// A command-line mistake: `otp` prints it on one line and exits with status 2.
struct UsageError: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// One `--option` a command accepts.
struct OptionSpec {
    /// The name without dashes, such as `code-lifetime`.
    let name: String
    /// The value's placeholder in help, such as `SECONDS`; `nil` for a flag.
    let valueName: String?
    /// The default as help shows it.
    let defaultText: String
    /// One line of help.
    let help: String
    /// Whether the option may be given more than once (values add up).
    let repeatable: Bool
    /// Environment variables read when the option is not on the command line, first found wins.
    let environment: [String]

    /// An option with a value, read from `OTP_<NAME>` too.
    static func value(
        _ name: String, _ valueName: String, default defaultText: String, _ help: String,
        repeatable: Bool = false,
        alsoFrom extra: [String] = []
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, defaultText: defaultText, help: help, repeatable: repeatable,
            environment: [environmentName(name)] + extra)
    }

    /// A flag, read from `OTP_<NAME>` too (`1`, `true`, `yes`; `0`, `false`, `no`).
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(
            name: name, valueName: nil, defaultText: "off", help: help, repeatable: false,
            environment: [environmentName(name)])
    }

    /// `OTP_` and the name in capitals with underscores: `code-lifetime` reads `OTP_CODE_LIFETIME`.
    static func environmentName(_ name: String) -> String {
        "OTP_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// Options as parsed: command line first, then the environment.
struct ParsedOptions {
    private(set) var values: [String: [String]] = [:]
    /// Arguments that are not options.
    private(set) var positional: [String] = []
    /// Whether `--help` or `-h` was given.
    private(set) var wantsHelp = false

    /// The option's value (the last one given), or `nil`.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag is on.
    func flag(_ name: String) -> Bool { values[name]?.last == "true" }

    /// Parses `--name value`, `--name=value` and flags against `specs`, then fills the rest from `environment`.
    ///
    /// Repeatable options read comma-separated lists from the environment.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], environment: [String: String]
    ) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.positional.append(argument)
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError("unknown option \(argument)") }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = byName[name] else { throw UsageError("unknown option --\(name)") }
            let value: String
            if spec.valueName == nil {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                value = "true"
            } else if let inline {
                value = inline
            } else {
                guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if spec.repeatable {
                parsed.values[name, default: []].append(value)
            } else {
                parsed.values[name] = [value]
            }
        }
        for spec in specs where parsed.values[spec.name] == nil {
            guard
                let (variable, text) = spec.environment.lazy.compactMap({ name in
                    environment[name].map { (name, $0) }
                }).first
            else { continue }
            if spec.valueName == nil {
                switch text.lowercased() {
                case "1", "true", "yes", "on": parsed.values[spec.name] = ["true"]
                case "0", "false", "no", "off", "": parsed.values[spec.name] = ["false"]
                default: throw UsageError("\(variable) must be 1 or 0, not \(text)")
                }
            } else if spec.repeatable {
                let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                parsed.values[spec.name] = items.filter { !$0.isEmpty }
            } else {
                parsed.values[spec.name] = [text]
            }
        }
        return parsed
    }

    /// Help text: each option with its placeholder, default, environment variables and one line of help.
    static func help(usage: String, specs: [OptionSpec]) -> String {
        var lines = [usage, "", "options (each also read from the environment variable shown):"]
        for spec in specs {
            let left = "  --\(spec.name)" + (spec.valueName.map { " \($0)" } ?? "")
            let padded = left.count < 42 ? left + String(repeating: " ", count: 42 - left.count) : left + "  "
            lines.append(padded + spec.help)
            lines.append(
                String(repeating: " ", count: 44) + "default: \(spec.defaultText); env: "
                    + spec.environment.joined(separator: ", ")
                    + (spec.repeatable ? " (comma-separated)" : ""))
        }
        lines.append("  --help" + String(repeating: " ", count: 36) + "this help")
        return lines.joined(separator: "\n")
    }
}

/// Number parsing for option values, with the option's name in every error.
enum OptionValue {
    /// A whole number within `range`.
    static func integer(_ text: String, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int
    {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)"
            )
        }
        return number
    }

    /// `N/SECONDS`, such as `5/3600`.
    static func rate(_ text: String, _ name: String) throws(UsageError) -> (limit: Int, seconds: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let limit = Int(parts[0]), let seconds = Int(parts[1]), limit >= 1,
            seconds >= 1
        else {
            throw UsageError("--\(name) must be N/SECONDS with both at least 1, such as 5/3600, not \(text)")
        }
        return (limit, seconds)
    }

    /// A comma-separated list of whole seconds, each at least 0.
    static func secondsList(_ text: String, _ name: String) throws(UsageError) -> [Int] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = items.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !items.isEmpty, numbers.count == items.count, numbers.allSatisfy({ $0 >= 0 }) else {
            throw UsageError("--\(name) must be comma-separated seconds, such as 30,60,120,300, not \(text)")
        }
        return numbers
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
