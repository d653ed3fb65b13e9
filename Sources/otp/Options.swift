import Foundation
import OTPHTTP

/// A command-line mistake: `otp` prints it on one line and exits with status 2.
struct UsageError: Error, Equatable {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}

/// What help and the parser know of one `--option`: its name, placeholder, default, help and
/// environment variables.
struct OptionSpec: Sendable {
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

    /// `OTP_` and the name in capitals with underscores: `code-lifetime` reads `OTP_CODE_LIFETIME`.
    static func environmentName(_ name: String) -> String {
        "OTP_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// One option with a value, declared once: its spec, its default and how its text becomes a `Value`.
///
/// Commands declare each option as a static constant and read it back through that constant
/// (``ParsedOptions/value(_:)``), so a misspelt name cannot compile and the parser, help,
/// environment fallback and bounds all come from the same declaration.
struct Option<Value: Sendable>: Sendable {
    /// Name, placeholder, default text, help and environment variables.
    let spec: OptionSpec
    /// The value when the option is given nowhere.
    let defaultValue: Value?
    /// Turns one given text into a value, or says what is wrong in a sentence about `--name`.
    let parse: @Sendable (String) throws(UsageError) -> Value

    /// Declares an option.
    init(
        _ name: String, _ valueName: String, default defaultValue: Value? = nil, defaultText: String,
        _ help: String, repeatable: Bool = false, alsoFrom extra: [String] = [],
        parse: @escaping @Sendable (String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(
            name: name, valueName: valueName, defaultText: defaultText, help: help, repeatable: repeatable,
            environment: [OptionSpec.environmentName(name)] + extra)
        self.defaultValue = defaultValue
        self.parse = parse
    }
}

/// A flag, declared once: `--name` on the command line, or `OTP_<NAME>=1` in the environment.
struct Flag: Sendable {
    /// Name, help and environment variable.
    let spec: OptionSpec

    /// Declares a flag.
    init(_ name: String, _ help: String) {
        spec = OptionSpec(
            name: name, valueName: nil, defaultText: "off", help: help, repeatable: false,
            environment: [OptionSpec.environmentName(name)])
    }
}

extension Option where Value == String {
    /// Text taken as given.
    static func text(
        _ name: String, _ valueName: String, default defaultValue: String? = nil, defaultText: String? = nil,
        _ help: String, repeatable: Bool = false, alsoFrom extra: [String] = []
    ) -> Option<String> {
        Option(
            name, valueName, default: defaultValue, defaultText: defaultText ?? defaultValue ?? "none", help,
            repeatable: repeatable, alsoFrom: extra
        ) { text throws(UsageError) in text }
    }
}

extension Option where Value == Int {
    /// The option of a server setting: its name, its bounds and its default come from the setting.
    static func integer(
        _ setting: ServerSetting<Int>, _ valueName: String, defaultText: String? = nil, _ help: String
    ) -> Option<Int> {
        integer(
            setting.name, valueName, in: setting.bounds, default: setting.defaultValue,
            defaultText: defaultText,
            help)
    }

    /// A whole number within `range`; every number an option takes has an upper bound.
    static func integer(
        _ name: String, _ valueName: String, in range: ClosedRange<Int>, default defaultValue: Int? = nil,
        defaultText: String? = nil, _ help: String
    ) -> Option<Int> {
        Option(
            name, valueName, default: defaultValue,
            defaultText: defaultText ?? defaultValue.map(String.init) ?? "none",
            help
        ) { text throws(UsageError) in try OptionValue.integer(text, name, in: range) }
    }
}

/// Options as parsed: command line first, then the environment.
struct ParsedOptions {
    private var values: [String: [String]] = [:]
    private var known: Set<String> = []
    private var onCommandLine: Set<String> = []
    /// The environment variable each option not on the command line was read from.
    private var fromEnvironment: [String: String] = [:]
    /// Arguments that are not options.
    private(set) var positional: [String] = []
    /// Whether `--help` or `-h` was given.
    private(set) var wantsHelp = false

    /// The option's value: the last one given, parsed, or its default.
    func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard let text = text(option.spec) else { return option.defaultValue }
        return try parsed(text, option)
    }

    /// A value parsed; an error about a value read from the environment names the variable, since
    /// that is where the operator set it.
    private func parsed<Value>(_ text: String, _ option: Option<Value>) throws(UsageError) -> Value {
        do throws(UsageError) {
            return try option.parse(text)
        } catch {
            guard let variable = fromEnvironment[option.spec.name] else { throw error }
            let flag = "--\(option.spec.name)"
            if text.isEmpty {
                throw UsageError("\(variable) (\(flag)) is set but empty: give it a value or unset it")
            }
            guard error.message.hasPrefix(flag) else {
                throw UsageError("\(variable) (\(flag)): \(error.message)")
            }
            throw UsageError("\(variable) (\(flag))" + error.message.dropFirst(flag.count))
        }
    }

    /// The option's value, which has a default.
    func value<Value>(_ option: Option<Value>, or fallback: Value) throws(UsageError) -> Value {
        try value(option) ?? fallback
    }

    /// Every value of a repeatable option, parsed.
    func all<Value>(_ option: Option<Value>) throws(UsageError) -> [Value] {
        precondition(
            known.contains(option.spec.name), "--\(option.spec.name) is not among the command's options")
        var parsed: [Value] = []
        for text in values[option.spec.name] ?? [] {
            parsed.append(try self.parsed(text, option))
        }
        return parsed
    }

    /// Whether a flag is on.
    func flag(_ flag: Flag) -> Bool {
        precondition(known.contains(flag.spec.name), "--\(flag.spec.name) is not among the command's options")
        return values[flag.spec.name]?.last == "true"
    }

    /// Whether the option was given on the command line or in the environment.
    func isGiven(_ spec: OptionSpec) -> Bool {
        values[spec.name] != nil
    }

    /// Whether the option was given on the command line, where other local users can read it
    /// in the process list.
    func isOnCommandLine(_ spec: OptionSpec) -> Bool {
        onCommandLine.contains(spec.name)
    }

    /// The option's last text as given, unparsed (such as a file's path, to read again later).
    func givenText(_ spec: OptionSpec) -> String? {
        text(spec)
    }

    private func text(_ spec: OptionSpec) -> String? {
        precondition(known.contains(spec.name), "--\(spec.name) is not among the command's options")
        return values[spec.name]?.last
    }

    /// Parses `--name value`, `--name=value` and flags against `specs`, then fills the rest from `environment`.
    ///
    /// Repeatable options read comma-separated lists from the environment.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], environment: [String: String]
    ) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        let byName = Dictionary(specs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        parsed.known = Set(byName.keys)
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
            parsed.onCommandLine.insert(name)
        }
        for spec in specs where parsed.values[spec.name] == nil {
            guard
                let (variable, text) = spec.environment.lazy.compactMap({ name in
                    environment[name].map { (name, $0) }
                }).first
            else { continue }
            parsed.fromEnvironment[spec.name] = variable
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

    /// `N/SECONDS`, such as `5/3600`, each within its bounds.
    static func rate(
        _ text: String, _ name: String, limits: ClosedRange<Int>, seconds: ClosedRange<Int>
    ) throws(UsageError) -> (limit: Int, seconds: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let limit = Int(parts[0]), let window = Int(parts[1]), limits.contains(limit),
            seconds.contains(window)
        else {
            throw UsageError(
                "--\(name) must be N/SECONDS with N from \(limits.lowerBound) to \(limits.upperBound) and "
                    + "SECONDS from \(seconds.lowerBound) to \(seconds.upperBound), such as 5/3600, not \(text)"
            )
        }
        return (limit, window)
    }

    /// A comma-separated list of up to `count` whole seconds, each within `range`.
    static func secondsList(
        _ text: String, _ name: String, in range: ClosedRange<Int>, count: Int
    ) throws(UsageError) -> [Int] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = items.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !items.isEmpty, items.count <= count, numbers.count == items.count,
            numbers.allSatisfy({ range.contains($0) })
        else {
            throw UsageError(
                "--\(name) must be up to \(count) comma-separated seconds from \(range.lowerBound) to "
                    + "\(range.upperBound), such as 30,60,120,300, not \(text)")
        }
        return numbers
    }
}

/// The options of a command that takes no arguments, or `nil` when it printed its help (exit 0).
func storeCommandOptions(
    _ arguments: [String], command: String, usage: String, specs: [OptionSpec]
) throws(UsageError) -> ParsedOptions? {
    let options = try ParsedOptions.parse(
        arguments, specs: specs, environment: ProcessInfo.processInfo.environment)
    if options.wantsHelp {
        print(ParsedOptions.help(usage: usage, specs: specs))
        return nil
    }
    guard options.positional.isEmpty else {
        throw UsageError("otp \(command) takes no arguments, only options")
    }
    return options
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

extension Option where Value == Duration {
    /// The option of a server setting that is a time, given as a whole number of `unit`s: its
    /// name, its bounds and its default come from the setting.
    static func duration(
        _ setting: ServerSetting<Duration>, _ valueName: String, unit: Duration, _ help: String
    ) -> Option<Duration> {
        let range = Int(setting.bounds.lowerBound / unit)...Int(setting.bounds.upperBound / unit)
        return Option(
            setting.name, valueName, default: setting.defaultValue,
            defaultText: String(Int(setting.defaultValue / unit)), help
        ) { text throws(UsageError) in unit * (try OptionValue.integer(text, setting.name, in: range)) }
    }
}

extension ServerStartError {
    /// The error as the command line says it: each setting named by its flag, `--threads is 0; …`.
    var commandLineDescription: String {
        ([message] + problems.map { "--\($0.setting) \($0.fact)." }).filter { !$0.isEmpty }.joined(
            separator: " ")
    }
}
