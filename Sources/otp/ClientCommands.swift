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
        options for every client command:
          --server URL     the server (env OTP_SERVER; default http://127.0.0.1:8080)
          --api-key KEY    an API key (env OTP_API_KEY)
        """

    /// Runs one client command; returns the process's exit status.
    static func main(_ command: String, _ arguments: [String]) async -> Int32 {
        var positional: [String] = []
        var options: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" {
                print(usage)
                return 0
            }
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard ["server", "api-key", "to", "channel", "idempotency-key"].contains(name) else {
                    return usageError("unknown option --\(name)")
                }
                if value == nil {
                    index += 1
                    guard index < arguments.count else { return usageError("--\(name) needs a value") }
                    value = arguments[index]
                }
                options[name] = value
            } else {
                positional.append(argument)
            }
            index += 1
        }
        let environment = ProcessInfo.processInfo.environment
        let serverText = options["server"] ?? environment["OTP_SERVER"] ?? "http://127.0.0.1:8080"
        guard let server = URL(string: serverText), server.scheme == "http" || server.scheme == "https",
            server.host != nil
        else {
            return usageError("--server must be an http or https URL, not \(serverText)")
        }
        guard let apiKey = options["api-key"] ?? environment["OTP_API_KEY"], !apiKey.isEmpty else {
            return usageError("an API key is needed: --api-key KEY or OTP_API_KEY")
        }
        let client = VerificationClient(baseURL: server, apiKey: apiKey)
        let expected = command == "start" ? 0 : command == "check" ? 2 : 1
        guard positional.count == expected else {
            return usageError("otp \(command) takes \(expected) argument\(expected == 1 ? "" : "s")")
        }
        do {
            let verification: Verification
            switch command {
            case "start":
                guard let to = options["to"] else { return usageError("otp start needs --to") }
                var channel: Channel?
                if let text = options["channel"] {
                    guard let parsed = Channel(rawValue: text) else {
                        return usageError("--channel must be sms or email")
                    }
                    channel = parsed
                }
                verification = try await client.startVerification(
                    to: to, channel: channel, idempotencyKey: options["idempotency-key"]
                ).verification
            case "check": verification = try await client.checkCode(id: positional[0], code: positional[1])
            case "resend": verification = try await client.resendCode(id: positional[0])
            case "status": verification = try await client.status(id: positional[0])
            default: verification = try await client.cancel(id: positional[0])
            }
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

    private static func usageError(_ message: String) -> Int32 {
        printError("otp: \(message)")
        return 2
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
