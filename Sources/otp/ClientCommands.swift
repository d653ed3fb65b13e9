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
        usage: otp start --to DESTINATION [--channel sms|email] [--idempotency-key KEY]
               otp check ID CODE
               otp resend ID
               otp status ID
               otp cancel ID
        """

    static let specs: [OptionSpec] = [
        .value("server", "URL", default: "http://127.0.0.1:8080", "the server to call"),
        .value("api-key", "KEY", default: "none", "an API key the server accepts"),
        .value("to", "DESTINATION", default: "none", "otp start: an E.164 phone number or an email address"),
        .value("channel", "sms|email", default: "inferred", "otp start: the channel"),
        .value("idempotency-key", "KEY", default: "random", "otp start: replays instead of sending twice"),
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
        let options: ParsedOptions

        init(_ command: String, _ options: ParsedOptions) throws(UsageError) {
            let serverText = options.value("server") ?? "http://127.0.0.1:8080"
            guard let server = URL(string: serverText), server.scheme == "http" || server.scheme == "https",
                server.host != nil
            else {
                throw UsageError("--server must be an http or https URL, not \(serverText)")
            }
            guard let apiKey = options.value("api-key"), !apiKey.isEmpty else {
                throw UsageError("an API key is needed: --api-key KEY or OTP_API_KEY")
            }
            let expected = command == "start" ? 0 : command == "check" ? 2 : 1
            guard options.positional.count == expected else {
                throw UsageError("otp \(command) takes \(expected) argument\(expected == 1 ? "" : "s")")
            }
            if command == "start" {
                guard options.value("to") != nil else { throw UsageError("otp start needs --to") }
                if let channel = options.value("channel"), Channel(rawValue: channel) == nil {
                    throw UsageError("--channel must be sms or email")
                }
            }
            self.command = command
            self.client = VerificationClient(baseURL: server, apiKey: apiKey)
            self.arguments = options.positional
            self.options = options
        }

        func send() async throws(ClientError) -> Verification {
            switch command {
            case "start":
                try await client.startVerification(
                    to: options.value("to") ?? "", channel: options.value("channel").flatMap(Channel.init),
                    idempotencyKey: options.value("idempotency-key")
                ).verification
            case "check": try await client.checkCode(id: arguments[0], code: arguments[1])
            case "resend": try await client.resendCode(id: arguments[0])
            case "status": try await client.status(id: arguments[0])
            default: try await client.cancel(id: arguments[0])
            }
        }
    }
}
