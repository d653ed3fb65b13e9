import Foundation
import OTPClient
import OTPCore
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
          --to DESTINATION     where the code goes (default +15550100)
          --length N           code length, 4-8 (default 6)
          --cooldown SECONDS   resend cooldown (default 15)
          --reduce-motion      no shake (also OTP_REDUCE_MOTION=1)
          --server URL         use a running `otp serve` instead of an in-process one
          --api-key KEY        its API key (env OTP_API_KEY)
          --offline            no server at all: an in-memory service with the same rules
        keys: digits type, Backspace deletes, Tab takes the suggestion, r resends, Enter retries, q quits
        """

    /// How long the phone takes to show a sent code.
    static let phoneDelay: Duration = .milliseconds(1200)

    struct Options {
        var to = "+15550100"
        var length = 6
        var cooldown = 15
        var reduceMotion = false
        var server: URL?
        var apiKey: String?
        var offline = false
    }

    /// Parses the demo's options; returns an error sentence for bad ones.
    static func parse(_ arguments: [String], environment: [String: String]) -> Result<Options, DemoUsageError>
    {
        var options = Options()
        options.reduceMotion = environment["OTP_REDUCE_MOTION"] == "1"
        options.apiKey = environment["OTP_API_KEY"]
        var index = 0
        func value(_ name: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--to":
                guard let text = value(argument) else { return .failure(.init("--to needs a value")) }
                options.to = text
            case "--length":
                guard let text = value(argument), let number = Int(text), (4...8).contains(number) else {
                    return .failure(.init("--length must be a number from 4 to 8"))
                }
                options.length = number
            case "--cooldown":
                guard let text = value(argument), let number = Int(text), (1...3600).contains(number) else {
                    return .failure(.init("--cooldown must be a number of seconds from 1 to 3600"))
                }
                options.cooldown = number
            case "--reduce-motion": options.reduceMotion = true
            case "--offline": options.offline = true
            case "--server":
                guard let text = value(argument), let url = URL(string: text), url.host != nil,
                    url.scheme == "http" || url.scheme == "https"
                else { return .failure(.init("--server must be an http or https URL")) }
                options.server = url
            case "--api-key":
                guard let text = value(argument), !text.isEmpty else {
                    return .failure(.init("--api-key needs a value"))
                }
                options.apiKey = text
            default:
                return .failure(.init("unknown option \(argument)"))
            }
            index += 1
        }
        if options.server != nil, options.apiKey == nil {
            return .failure(.init("--server needs --api-key or OTP_API_KEY"))
        }
        return .success(options)
    }

    /// Runs the demo; returns the exit status.
    @MainActor
    static func main(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let options: Options
        switch parse(arguments, environment: ProcessInfo.processInfo.environment) {
        case .success(let parsed): options = parsed
        case .failure(let error):
            printError("otp demo: \(error.message)")
            return 2
        }
        guard RawTerminal.isInteractive else {
            printError("otp demo: \(RawTerminal.Failure.notATerminal)")
            return 2
        }

        let service: any VerificationService
        let phone: (any DemoPhone)?
        var embedded: EmbeddedServer?
        if options.offline {
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

        let model = VerificationModel(service: service, format: CodeFormat(length: options.length))
        let color = ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
        let screen = TerminalScreen(model: model, color: color, reduceMotion: options.reduceMotion) {
            terminal.emit($0)
        }
        let starting = Task { await model.start(to: options.to) }
        let watcher = Task {
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

    static func randomCode(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}

/// A bad option of `otp demo`.
struct DemoUsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
