import Foundation
import OTPClient
import OTPCore
import OTPQR

/// `otp totp enroll|check|recover|recovery-codes|delete`: authenticator factors on a running server.
///
/// `enroll` prints the QR code in the terminal (half blocks) for an authenticator app to scan, then
/// the URI and the factor; the others print the factor as JSON. Errors go to standard error with
/// exit status 1 (an answer of the server) or 2 (bad usage).
enum TOTPCommand {
    static let usage = """
        usage: otp totp enroll --account NAME --issuer NAME
               otp totp check ID CODE
               otp totp recover ID RECOVERY-CODE
               otp totp recovery-codes ID
               otp totp delete ID
        """

    static let account = Option.text("account", "NAME", "enroll: the account the app shows, such as an email")
    static let issuer = Option.text(
        "issuer", "NAME", "enroll: the issuer the app shows, such as your app's name")

    static let specs: [OptionSpec] = [
        ClientCommands.Flags.server.spec, ClientCommands.Flags.apiKey.spec, account.spec, issuer.spec,
    ]

    /// Runs one subcommand; returns the process's exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        let subcommand = arguments.first ?? ""
        let client: VerificationClient
        let positional: [String]
        let options: ParsedOptions
        let accountName: String
        let issuerName: String
        do throws(UsageError) {
            options = try ParsedOptions.parse(
                Array(arguments.dropFirst()), specs: specs, environment: ProcessInfo.processInfo.environment)
            if options.wantsHelp || subcommand == "--help" || subcommand == "-h" {
                print(ParsedOptions.help(usage: usage, specs: specs))
                return 0
            }
            let expected = ["enroll": 0, "check": 2, "recover": 2, "recovery-codes": 1, "delete": 1]
            guard let count = expected[subcommand] else {
                throw UsageError(
                    subcommand.isEmpty ? "a subcommand is needed" : "unknown subcommand \(subcommand)")
            }
            guard options.positional.count == count else {
                throw UsageError("otp totp \(subcommand) takes \(count) argument\(count == 1 ? "" : "s")")
            }
            var server = try ClientCommands.Flags.server.parse(ClientCommands.Flags.server.spec.defaultText)
            if let given = try options.value(ClientCommands.Flags.server) { server = given }
            guard let apiKey = try options.value(ClientCommands.Flags.apiKey), !apiKey.isEmpty else {
                throw UsageError("an API key is needed: --api-key KEY or OTP_API_KEY")
            }
            accountName = try options.value(account) ?? ""
            issuerName = try options.value(issuer) ?? ""
            if subcommand == "enroll", accountName.isEmpty || issuerName.isEmpty {
                throw UsageError("otp totp enroll needs --account and --issuer")
            }
            client = VerificationClient(baseURL: server, apiKey: apiKey)
            positional = options.positional
        } catch {
            printError("otp totp: \(error.message) (see otp totp --help)")
            return 2
        }
        do throws(ClientError) {
            let factor: TOTPFactorInfo?
            switch subcommand {
            case "enroll":
                let enrolled = try await client.enrollTOTP(account: accountName, issuer: issuerName)
                if let uri = enrolled.otpauthUri, let code = QRCode(uri) {
                    print(code.terminalLines().joined(separator: "\n"))
                    print("Scan this with an authenticator app, or enter:\n\(uri)\n")
                }
                factor = enrolled
            case "check": factor = try await client.checkTOTP(id: positional[0], code: positional[1])
            case "recover": factor = try await client.recoverTOTP(id: positional[0], code: positional[1])
            case "recovery-codes": factor = try await client.replaceTOTPRecoveryCodes(id: positional[0])
            default:
                try await client.deleteTOTP(id: positional[0])
                factor = nil
            }
            if let factor { print(describe(factor)) }
            return 0
        } catch {
            printError("otp totp \(subcommand): \(error.code): \(error.message)")
            return 1
        }
    }

    /// The factor as JSON, the URI and QR code left out (printed above when there are any).
    static func describe(_ factor: TOTPFactorInfo) -> String {
        var object: [String: Any] = [
            "id": factor.id, "status": factor.status, "account": factor.account, "issuer": factor.issuer,
            "attemptsLeft": factor.attemptsLeft, "recoveryCodesLeft": factor.recoveryCodesLeft,
        ]
        if let codes = factor.recoveryCodes { object["recoveryCodes"] = codes }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return factor.id }
        return String(decoding: data, as: UTF8.self)
    }
}
