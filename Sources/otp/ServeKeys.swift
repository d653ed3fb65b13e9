import Foundation
import OTPEngine

/// Where `otp serve`'s API keys, publishable keys and test destinations come from: values fixed at
/// start (command line, environment, `--dev`) and files read at start and again on each SIGHUP.
struct ServeKeys: Sendable {
    /// Secret keys from `--api-key`, `OTP_API_KEYS` and `--dev`.
    var fixedAPIKeys: [String] = []
    /// `--api-key-file`.
    var apiKeyFile: String?
    /// Publishable keys from `--publishable-key` and `OTP_PUBLISHABLE_KEYS`.
    var fixedPublishable: [(String, String)] = []
    /// `--publishable-key-file`.
    var publishableKeyFile: String?
    /// Test destinations from `--test-destination` and `OTP_TEST_DESTINATIONS`.
    var fixedTestDestinations: [(String, String)] = []
    /// `--test-destination-file`.
    var testDestinationFile: String?

    /// The fewest characters an API key may have: 24 random characters cannot be guessed online.
    static let minimumKeyLength = 24

    /// What the sources hold now.
    struct Loaded: Sendable, Equatable {
        var apiKeys: [String]
        var publishable: [String: String]
        var testDestinations: [String: String]
    }

    /// Reads the files and checks everything, or names what is wrong.
    func load() throws(UsageError) -> Loaded {
        typealias O = ServeOptions
        var keys = fixedAPIKeys
        if let apiKeyFile { keys += try O.apiKeyFile.parse(apiKeyFile) }
        guard !keys.isEmpty else {
            throw UsageError(
                "no API key: give --api-key-file PATH (OTP_API_KEY_FILE) or OTP_API_KEYS, or run with --dev")
        }
        if let short = keys.first(where: { $0.count < Self.minimumKeyLength }) {
            throw UsageError(
                "an API key has \(short.count) characters, fewer than \(Self.minimumKeyLength): "
                    + "make each one with openssl rand -hex 32")
        }
        var publishable: [String: String] = [:]
        var pairs = fixedPublishable
        if let publishableKeyFile { pairs += try O.publishableKeyFile.parse(publishableKeyFile) }
        for (name, key) in pairs {
            guard publishable[name] == nil else { throw UsageError("two publishable keys are named \(name)") }
            publishable[name] = key
        }
        var tests: [String: String] = [:]
        var destinations = fixedTestDestinations
        if let testDestinationFile { destinations += try O.testDestinationFile.parse(testDestinationFile) }
        for (destination, code) in destinations { tests[destination] = code }
        return Loaded(apiKeys: keys, publishable: publishable, testDestinations: tests)
    }

    /// Whether a reload has anything to read again.
    var hasFiles: Bool { apiKeyFile != nil || publishableKeyFile != nil || testDestinationFile != nil }
}

/// The provider secrets `otp serve` reads from the environment, each also from a file named by
/// `NAME_FILE` (private: mode 0600, or 0640 owned by root, as the key files are).
enum ServeSecrets {
    /// Every secret a sender, the start guard, the event webhook or a store reads from the environment.
    static let names = [
        "OTP_TWILIO_ACCOUNT_SID", "OTP_TWILIO_AUTH_TOKEN", "OTP_SMTP_USERNAME", "OTP_SMTP_PASSWORD",
        "OTP_WEBHOOK_SECRET", "OTP_START_GUARD_SECRET", "OTP_EVENTS_SECRET", "OTP_STORE_PASSWORD",
    ]

    /// What `otp serve --help` says of the variables no option reads: each with what it is for.
    static let help: [(name: String, use: String)] = [
        ("OTP_TWILIO_ACCOUNT_SID", "the Twilio account (--sender sms=twilio)"),
        ("OTP_TWILIO_AUTH_TOKEN", "its auth token"),
        ("OTP_TWILIO_FROM", "the number SMS come from, or:"),
        ("OTP_TWILIO_MESSAGING_SERVICE_SID", "the messaging service that sends them"),
        ("OTP_TWILIO_BASE_URL", "an https Twilio-compatible provider instead of Twilio"),
        ("OTP_SMTP_USERNAME", "the SMTP sender's user name"),
        ("OTP_SMTP_PASSWORD", "its password"),
        ("OTP_SMTP_CA_FILE", "a CA bundle that SMTP's TLS trusts instead of the system's"),
        ("OTP_WEBHOOK_SECRET", "the key the webhook sender signs messages with"),
        ("OTP_START_GUARD_SECRET", "the key the start guard's requests are signed with"),
        ("OTP_EVENTS_SECRET", "the key lifecycle events are signed with (--events)"),
        ("OTP_STORE_PASSWORD", "the Redis or PostgreSQL password when --store has none"),
    ]

    /// The help's section on them.
    static var helpText: String {
        var lines = [
            "",
            "environment only (a name with * can also be read from a private file named by NAME_FILE:",
            "owned by the server's user with mode 0600, or by root with its group and mode 0640):",
        ]
        for (name, use) in help {
            let left = "  " + name + (names.contains(name) ? " *" : "")
            lines.append(left + String(repeating: " ", count: max(2, 44 - left.count)) + use)
        }
        return lines.joined(separator: "\n")
    }

    /// The environment with each `NAME_FILE`'s contents (without a final newline) as `NAME`.
    ///
    /// - Throws: ``UsageError`` when both `NAME` and `NAME_FILE` are set, or the file cannot be read,
    ///   is readable by others, or is empty.
    static func resolve(_ environment: [String: String]) throws(UsageError) -> [String: String] {
        var resolved = environment
        for name in names {
            guard let path = environment[name + "_FILE"], !path.isEmpty else { continue }
            if let direct = environment[name], !direct.isEmpty {
                throw UsageError("give \(name) or \(name)_FILE, not both")
            }
            let text = try ServeOptions.privateText(path, flag: name + "_FILE")
            var value = Substring(text)
            while value.last?.isNewline == true { value = value.dropLast() }
            guard !value.isEmpty else { throw UsageError("\(name)_FILE: \(path) is empty") }
            resolved[name] = String(value)
        }
        return resolved
    }
}
