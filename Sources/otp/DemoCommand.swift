import Foundation
import OTPClient
import OTPCore
import OTPEngine
import OTPQR
import OTPTerminal

/// `otp demo`: the whole system on one terminal screen.
///
/// It starts a server in-process on a free loopback port (temporary SQLite
/// store, outbox sender), talks to it over real HTTP through
/// `VerificationClient`, and shows the verification screen. The "phone" is the
/// outbox: about 1.2 s after each send the code is offered in the suggestion bar.
enum DemoCommand {
    static let usage = """
        usage: otp demo [options]
        keys: digits type, Backspace deletes, Tab takes the suggestion, r (or Ctrl-R) resends, Enter retries, q quits
        --totp: enrols an authenticator factor, shows its QR code, then asks for its code (no resend)
        """

    /// The demo's options, each declared once.
    enum Flags {
        static let to = Option.text("to", "DESTINATION", default: "+12015550100", "where the code goes")
        static let length = Option.integer("length", "N", in: 4...8, default: 6, "code length, 4-8")
        static let cooldown = Option.integer(
            "cooldown", "SECONDS", in: 1...3600, default: 15, "resend cooldown")
        static let reduceMotion = Flag("reduce-motion", "no shake")
        static let server = Option(
            "server", "URL", defaultText: "in-process", "use a running `otp serve` instead"
        ) { text throws(UsageError) -> URL in
            guard let url = URL(string: text), url.host != nil, url.scheme == "http" || url.scheme == "https"
            else { throw UsageError("--server must be an http or https URL") }
            return url
        }
        static let apiKey = Option.text("api-key", "KEY", "its API key")
        static let offline = Flag("offline", "no server at all: an in-memory service with the same rules")
        static let totp = Flag(
            "totp", "an authenticator-app factor: enrols one, shows its QR code, then offers its current code"
        )
        static let web = Flag(
            "web", "the hosted page in a browser: prints its address and the codes the phone receives")
        static let locale = Option(
            "locale", "LANGUAGE", defaultText: "from LC_ALL, LC_MESSAGES or LANG, else en",
            "the screen's language: en, de, ar or ja"
        ) { text throws(UsageError) -> TextLanguage in
            guard let language = TextLanguage(identifier: text) else {
                let known = TextLanguage.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError(
                    "--locale must be one of \(known) (a region such as de-CH is fine), not \(text)")
            }
            return language
        }
    }

    static let specs: [OptionSpec] = [
        Flags.to.spec, Flags.length.spec, Flags.cooldown.spec, Flags.reduceMotion.spec, Flags.server.spec,
        Flags.apiKey.spec, Flags.offline.spec, Flags.locale.spec, Flags.web.spec, Flags.totp.spec,
    ]

    /// How long the phone takes to show a sent code.
    static let phoneDelay: Duration = .milliseconds(1200)

    struct Options {
        var to = "+12015550100"
        var length = 6
        var cooldown = 15
        var reduceMotion = false
        var server: URL?
        var apiKey: String?
        var offline = false
        var language = TextLanguage.english
        var web = false
        var totp = false
    }

    /// Reads the demo's options from parsed command-line and environment values.
    static func options(
        from parsed: ParsedOptions, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> Options {
        guard parsed.positional.isEmpty else {
            throw UsageError("unexpected argument \(parsed.positional[0])")
        }
        var options = Options()
        options.to = try parsed.value(Flags.to, or: options.to)
        options.length = try parsed.value(Flags.length, or: options.length)
        options.cooldown = try parsed.value(Flags.cooldown, or: options.cooldown)
        options.reduceMotion = parsed.flag(Flags.reduceMotion)
        options.offline = parsed.flag(Flags.offline)
        options.web = parsed.flag(Flags.web)
        options.totp = parsed.flag(Flags.totp)
        if options.totp, options.offline || options.web {
            throw UsageError("--totp needs a server: leave out --offline and --web")
        }
        options.apiKey = try parsed.value(Flags.apiKey)
        options.server = try parsed.value(Flags.server)
        if options.web, options.offline || options.server != nil {
            throw UsageError("--web runs its own server: leave out --offline and --server")
        }
        options.language = try parsed.value(Flags.locale, or: environmentLanguage(environment))
        if options.server != nil, options.apiKey == nil {
            throw UsageError("--server needs --api-key or OTP_API_KEY")
        }
        return options
    }

    /// The language the environment's locale names (`LC_ALL`, then `LC_MESSAGES`, then `LANG`,
    /// the first one set), English when it is not one of the catalog's.
    static func environmentLanguage(_ environment: [String: String]) -> TextLanguage {
        let identifier = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }
            .first { !$0.isEmpty }
        return identifier.flatMap(TextLanguage.init(identifier:)) ?? .english
    }

    /// Runs the demo; returns the exit status.
    @MainActor
    static func main(_ arguments: [String]) async -> Int32 {
        let options: Options
        do throws(UsageError) {
            let parsed = try ParsedOptions.parse(
                arguments, specs: specs, environment: ProcessInfo.processInfo.environment)
            if parsed.wantsHelp {
                print(ParsedOptions.help(usage: usage, specs: specs))
                return 0
            }
            options = try Self.options(from: parsed)
        } catch {
            printError("otp demo: \(error.message) (see otp demo --help)")
            return 2
        }
        if options.web {
            return await WebDemo.run(to: options.to, length: options.length, cooldown: options.cooldown)
        }
        guard RawTerminal.isInteractive else {
            printError("otp demo: \(RawTerminal.Failure.notATerminal)")
            return 2
        }

        let service: any VerificationService
        let phone: (any DemoPhone)?
        var embedded: EmbeddedServer?
        var authenticator: (factorID: String, totp: TOTP, attemptsLeft: Int)?
        if options.totp {
            let client: VerificationClient
            if let server = options.server, let apiKey = options.apiKey {
                client = VerificationClient(baseURL: server, apiKey: apiKey)
            } else {
                do {
                    let started = try await EmbeddedServer.start(length: 6, cooldown: options.cooldown)
                    embedded = started
                    client = VerificationClient(baseURL: started.url, apiKey: started.apiKey)
                } catch {
                    printError("otp demo: could not start the server: \(error)")
                    return 1
                }
            }
            guard let enrolled = await enrollForDemo(client) else {
                await embedded?.stop()
                return 1
            }
            authenticator = (enrolled.id, enrolled.totp, enrolled.attemptsLeft)
            service = AuthenticatorService(client: client)
            phone = nil
        } else if options.offline {
            let preview = PreviewVerificationService(
                configuration: .init(
                    codes: (0..<5).map { _ in randomCode(length: options.length) },
                    resendCooldowns: [.seconds(options.cooldown)]))
            service = preview
            phone = PreviewPhone(service: preview)
        } else if let server = options.server, let apiKey = options.apiKey {
            service = VerificationClient(baseURL: server, apiKey: apiKey)
            phone = nil
        } else {
            do {
                let started = try await EmbeddedServer.start(
                    length: options.length, cooldown: options.cooldown)
                embedded = started
                service = VerificationClient(baseURL: started.url, apiKey: started.apiKey)
                phone = OutboxPhone(path: started.outboxPath)
            } catch {
                printError("otp demo: could not start the server: \(error)")
                return 1
            }
        }

        let terminal: RawTerminal
        do { terminal = try RawTerminal() } catch {
            await embedded?.stop()
            printError("otp demo: \(error)")
            return 2
        }

        let model = VerificationModel(
            service: service, format: CodeFormat(length: options.length), language: options.language)
        let color = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
        let screen = TerminalScreen(model: model, color: color, reduceMotion: options.reduceMotion) {
            terminal.emit($0)
        }
        let starting = Task {
            if let authenticator {
                model.showAuthenticator(
                    factorID: authenticator.factorID, attemptsLeft: authenticator.attemptsLeft)
            } else {
                await model.start(to: options.to)
            }
        }
        let watcher = Task {
            if let authenticator {
                await showCurrentCodes(authenticator.totp, model: model)
                return
            }
            guard let phone else { return }
            await watch(phone, model: model)
        }
        _ = await screen.run(events: KeyReader.events())
        terminal.restore()
        starting.cancel()
        watcher.cancel()
        model.stop()
        await embedded?.stop()
        return 0
    }

    /// Offers each newly received code in the suggestion bar, a phone's delay after it arrived.
    @MainActor
    static func watch(_ phone: any DemoPhone, model: VerificationModel) async {
        var seen = 0
        while !Task.isCancelled {
            let codes = await phone.receivedCodes()
            if codes.count > seen, let newest = codes.last {
                seen = codes.count
                try? await Task.sleep(for: phoneDelay)
                model.offerSuggestion(newest)
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Enrols a factor for the demo, prints its QR code and URI, and waits for Enter.
    static func enrollForDemo(
        _ client: VerificationClient
    ) async -> (id: String, totp: TOTP, attemptsLeft: Int)? {
        let enrolled: TOTPFactorInfo
        do throws(ClientError) {
            enrolled = try await client.enrollTOTP(account: "demo@example.org", issuer: "OTPKit demo")
        } catch {
            printError("otp demo: could not enrol a factor: \(error.code): \(error.message)")
            return nil
        }
        guard let uri = enrolled.otpauthUri, let secret = TOTP.secret(inProvisioningURI: uri) else {
            printError("otp demo: the server's enrolment has no usable otpauth URI")
            return nil
        }
        if let code = QRCode(uri) { print(code.terminalLines().joined(separator: "\n")) }
        print("Scan this with an authenticator app (or use the codes the demo offers), then press Enter.")
        print(uri)
        _ = readLine()
        return (enrolled.id, TOTP(secret: secret), enrolled.attemptsLeft)
    }

    /// Offers the factor's current code in the suggestion bar, as an authenticator app shows it,
    /// and a new one when its 30-second step turns.
    @MainActor
    static func showCurrentCodes(_ totp: TOTP, model: VerificationModel) async {
        var shown: String?
        while !Task.isCancelled {
            let code = totp.code(at: Date())
            if code != shown {
                shown = code
                model.offerSuggestion(code, source: .authenticator)
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    static func randomCode(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}
