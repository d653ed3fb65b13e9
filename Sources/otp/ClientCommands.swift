import Foundation
import OTPClient
import OTPCore

/// `otp start`, `otp check`, `otp resend`, `otp status`, `otp cancel`: the HTTP API for scripts.
///
/// Each prints the verification as JSON on success, or the error object on
/// standard error and exits with 1 (an answer of the server) or 2 (bad usage).
enum ClientCommands {
    static let names: Set<String> = ["start", "check", "resend", "status", "cancel"]

    static let usage = """
        usage: otp start --to DESTINATION [--channel sms|email] [--country GB] [--idempotency-key KEY]
               otp check ID CODE
               otp resend ID
               otp status ID
               otp cancel ID
        """

    /// The client commands' options, each declared once.
    enum Flags {
        static let server = Option(
            "server", "URL", defaultText: "http://127.0.0.1:8080", "the server to call"
        ) { text throws(UsageError) -> URL in
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil
            else { throw UsageError("--server must be an http or https URL, not \(text)") }
            return url
        }
        static let apiKey = Option.text("api-key", "KEY", "an API key the server accepts")
        static let to = Option.text(
            "to", "DESTINATION", "otp start: an E.164 phone number or an email address")
        static let channel = Option(
            "channel", "sms|email", defaultText: "inferred", "otp start: the channel"
        ) { text throws(UsageError) -> Channel in
            guard let channel = Channel(rawValue: text) else {
                throw UsageError("--channel must be sms or email")
            }
            return channel
        }
        static let country = Option(
            "country", "CC", defaultText: "none",
            "otp start: the ISO 3166 region a phone number in national format is read in, such as GB"
        ) { text throws(UsageError) -> String in
            guard text.utf8.count == 2, text.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw UsageError("--country must be an ISO 3166 alpha-2 region such as GB, not \(text)")
            }
            return text.uppercased()
        }
        static let idempotencyKey = Option.text(
            "idempotency-key", "KEY", defaultText: "random", "otp start: replays instead of sending twice")
    }

    static let specs: [OptionSpec] = [
        Flags.server.spec, Flags.apiKey.spec, Flags.to.spec, Flags.channel.spec, Flags.country.spec,
        Flags.idempotencyKey.spec,
    ]

    /// Runs one client command; returns the process's exit status.
    static func main(_ command: String, _ arguments: [String]) async -> Int32 {
        let request: Request
        do throws(UsageError) {
            let options = try ParsedOptions.parse(
                arguments, specs: specs, environment: ProcessInfo.processInfo.environment)
            if options.wantsHelp {
                print(ParsedOptions.help(usage: usage, specs: specs))
                return 0
            }
            request = try Request(command, options)
        } catch {
            printError("otp \(command): \(error.message) (see otp \(command) --help)")
            return 2
        }
        do {
            let verification = try await request.send()
            let encoder = WireCoding.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            guard let data = try? encoder.encode(verification) else { return 1 }
            print(String(decoding: data, as: UTF8.self))
            return 0
        } catch {
            printError("otp \(command): \(error.code): \(error.message)")
            return 1
        }
    }

    /// One call of the API, checked before anything is sent.
    struct Request {
        let command: String
        let client: VerificationClient
        let arguments: [String]
        let to: String
        let channel: Channel?
        let country: String?
        let idempotencyKey: String?

        init(_ command: String, _ options: ParsedOptions) throws(UsageError) {
            var server = try Flags.server.parse(Flags.server.spec.defaultText)
            if let given = try options.value(Flags.server) { server = given }
            guard let apiKey = try options.value(Flags.apiKey), !apiKey.isEmpty else {
                throw UsageError("an API key is needed: --api-key KEY or OTP_API_KEY")
            }
            let expected = command == "start" ? 0 : command == "check" ? 2 : 1
            guard options.positional.count == expected else {
                throw UsageError("otp \(command) takes \(expected) argument\(expected == 1 ? "" : "s")")
            }
            let to = try options.value(Flags.to)
            let channel = try options.value(Flags.channel)
            if command == "start", to == nil { throw UsageError("otp start needs --to") }
            self.command = command
            self.client = VerificationClient(baseURL: server, apiKey: apiKey)
            self.arguments = options.positional
            self.to = to ?? ""
            self.channel = channel
            self.country = try options.value(Flags.country)
            self.idempotencyKey = try options.value(Flags.idempotencyKey)
        }

        func send() async throws(ClientError) -> Verification {
            switch command {
            case "start":
                try await client.startVerification(
                    to: to, channel: channel, idempotencyKey: idempotencyKey, country: country
                ).verification
            case "check": try await client.checkCode(id: arguments[0], code: arguments[1])
            case "resend": try await client.resendCode(id: arguments[0])
            case "status": try await client.status(id: arguments[0])
            default: try await client.cancel(id: arguments[0])
            }
        }
    }
}
