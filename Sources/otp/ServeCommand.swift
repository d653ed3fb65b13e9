import Dispatch
import Foundation
import OTPHTTP
import OTPServer

/// `otp serve`: the verification server, configured by options or `OTP_*` environment variables.
enum ServeCommand {
    static let usage = "usage: otp serve [options]"

    /// Every option of `otp serve`, with the defaults of ``Policy/default``.
    static let specs: [OptionSpec] = {
        let policy = Policy.default
        func seconds(_ duration: Duration) -> String { String(duration.components.seconds) }
        func rate(_ limit: RateLimit) -> String { "\(limit.limit)/\(seconds(limit.window))" }
        return [
            .value("host", "HOST", default: "127.0.0.1", "the IP address to listen on"),
            .value("port", "PORT", default: "8080", "the port to listen on; 0 picks a free one"),
            .value(
                "api-key", "KEY", default: "none (required unless --dev)",
                "an API key clients send as Authorization: Bearer KEY; repeatable", repeatable: true,
                alsoFrom: ["OTP_API_KEYS"]),
            .flag("dev", "development: generate and print an API key, console sender unless --sender"),
            .value(
                "store", "STORE", default: "sqlite:otp.sqlite3",
                "memory | sqlite:PATH | redis://HOST:PORT[/DB]"),
            .value(
                "sender", "SENDER", default: "console with --dev, else none (required)",
                "console | outbox:PATH | smtp://HOST[:PORT] | smtp+starttls://… | smtps://… | webhook:URL | twilio; "
                    + "repeatable, one per channel", repeatable: true),
            .value("app-name", "NAME", default: policy.appName, "the app's name in messages"),
            .value("domain", "DOMAIN", default: "none", "the web domain codes are bound to (@DOMAIN #CODE)"),
            .value(
                "android-app-hash", "HASH", default: "none",
                "the Android SMS Retriever app hash (11 characters)"),
            .value("code-length", "N", default: String(policy.codeLength), "digits per code, 4 to 8"),
            .value("max-attempts", "N", default: String(policy.maxAttempts), "attempts per code"),
            .value(
                "code-lifetime", "SECONDS", default: seconds(policy.codeLifetime), "how long a code works"),
            .value(
                "resend-cooldowns", "LIST",
                default: policy.resendCooldowns.map(seconds).joined(separator: ","),
                "seconds to wait before each resend; the last repeats"),
            .value(
                "max-sends", "N", default: String(policy.maxSends), "codes one verification may send in all"),
            .value(
                "limit-starts-per-destination", "N/SECONDS", default: rate(policy.startsPerDestination),
                "starts per phone number or email address"),
            .value(
                "limit-starts-per-address", "N/SECONDS", default: rate(policy.startsPerAddress),
                "starts per client address (IPv6 by /64)"),
            .value(
                "limit-checks-per-address", "N/SECONDS", default: rate(policy.checksPerAddress),
                "checks per client address, every check counted"),
            .value(
                "limit-failed-checks-per-destination", "N/SECONDS",
                default: rate(policy.failedChecksPerDestination), "incorrect codes per destination"),
            .value(
                "global-sends-per-hour", "N", default: "no cap", "messages the whole server may send per hour"
            ),
            .value(
                "allowed-calling-codes", "LIST", default: "all",
                "country calling codes SMS may go to, such as 1,44"),
            .flag("trust-proxy", "take the client address from X-Forwarded-For (only behind your own proxy)"),
            .value(
                "secret-file", "PATH", default: "STORE.secret next to a SQLite store",
                "the HMAC key file, created with a random key (mode 0600) when absent"),
            .value(
                "metrics-address", "HOST:PORT", default: "the main listener",
                "serve /metrics and /healthz on their own listener"),
            .value("connection-timeout", "SECONDS", default: "10", "drop a connection that stalls this long"),
            .value(
                "check-floor", "MILLISECONDS",
                default: String(Int(ServerConfiguration.defaultCheckFloor / .milliseconds(1))),
                "the least time a check takes to answer, so right and wrong codes take as long (0: off)"),
            .value("threads", "N", default: "2", "HTTP worker threads"),
        ]
    }()

    /// Runs the server until SIGTERM or SIGINT; returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let configuration: ServerConfiguration
        let developmentKey: String?
        do throws(UsageError) {
            let options = try ParsedOptions.parse(arguments, specs: specs, environment: environment)
            if options.wantsHelp {
                print(ParsedOptions.help(usage: usage, specs: specs))
                return 0
            }
            guard options.positional.isEmpty else {
                throw UsageError("unexpected argument \(options.positional[0])")
            }
            (configuration, developmentKey) = try makeConfiguration(options, environment: environment)
        } catch {
            printError("otp serve: \(error.message) (see otp serve --help)")
            return 2
        }
        if let key = developmentKey {
            printError("otp serve --dev: API key \(key) (development only; use --api-key in production)")
        }
        for warning in configuration.policy.weakSettings() {
            printError("otp serve: warning: \(warning)")
        }
        if configuration.senders.contains(where: \.isForDevelopmentOnly) {
            printError(
                "otp serve: warning: the console sender prints codes to standard error: development only")
        }
        raiseOpenFileLimit()
        let signals = SignalWaiter(signals: [SIGTERM, SIGINT])
        let server: RunningServer
        do {
            server = try await OTPServerApp.start(configuration)
        } catch {
            printError("otp serve: \(error.description)")
            return 1
        }
        // Exactly one line on standard output, written at once so a pipe sees it immediately.
        FileHandle.standardOutput.write(Data("listening on \(server.url)\n".utf8))
        let signal = await signals.next()
        printError("otp serve: \(signal == SIGINT ? "SIGINT" : "SIGTERM"): finishing requests in flight")
        await server.stop()
        return 0
    }

    /// Turns parsed options into a server configuration and the `--dev` key if one was made, or names
    /// the option that is wrong.
    static func makeConfiguration(
        _ options: ParsedOptions, environment: [String: String]
    ) throws(UsageError) -> (ServerConfiguration, developmentKey: String?) {
        var policy = Policy.default
        if let text = options.value("code-length") {
            policy.codeLength = try OptionValue.integer(text, "code-length", in: 4...8)
        }
        if let text = options.value("max-attempts") {
            policy.maxAttempts = try OptionValue.integer(text, "max-attempts", in: 1...1_000_000)
        }
        if let text = options.value("code-lifetime") {
            policy.codeLifetime = .seconds(try OptionValue.integer(text, "code-lifetime", in: 1...31_536_000))
        }
        if let text = options.value("resend-cooldowns") {
            policy.resendCooldowns = try OptionValue.secondsList(text, "resend-cooldowns").map {
                .seconds($0)
            }
        }
        if let text = options.value("max-sends") {
            policy.maxSends = try OptionValue.integer(text, "max-sends", in: 1...1_000_000)
        }
        let limits: [(String, WritableKeyPath<Policy, RateLimit>)] = [
            ("limit-starts-per-destination", \.startsPerDestination),
            ("limit-starts-per-address", \.startsPerAddress),
            ("limit-checks-per-address", \.checksPerAddress),
            ("limit-failed-checks-per-destination", \.failedChecksPerDestination),
        ]
        for (name, path) in limits {
            guard let text = options.value(name) else { continue }
            let (limit, seconds) = try OptionValue.rate(text, name)
            policy[keyPath: path] = RateLimit(limit: limit, window: .seconds(seconds))
        }
        if let text = options.value("global-sends-per-hour") {
            policy.globalSendsPerHour = try OptionValue.integer(
                text, "global-sends-per-hour", in: 1...Int(Int32.max))
        }
        if let text = options.value("allowed-calling-codes") {
            let codes = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !codes.isEmpty,
                codes.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isNumber) })
            else {
                throw UsageError("--allowed-calling-codes must be calling codes such as 1,44, not \(text)")
            }
            policy.allowedCallingCodes = Set(codes)
        }
        if let name = options.value("app-name") { policy.appName = name }
        policy.domain = options.value("domain").flatMap { $0.isEmpty ? nil : $0 }
        policy.androidAppHash = options.value("android-app-hash").flatMap { $0.isEmpty ? nil : $0 }

        let dev = options.flag("dev")
        var keys = options.all("api-key").filter { !$0.isEmpty }
        let madeKey = dev ? developmentKey() : nil
        if let madeKey { keys.append(madeKey) }
        guard !keys.isEmpty else {
            throw UsageError("no API key: give --api-key KEY (or OTP_API_KEYS), or run with --dev")
        }
        var senders: [ServerConfiguration.Sender] = []
        do throws(ServerStartError) {
            senders = try options.all("sender").map { text throws(ServerStartError) in
                try ServerConfiguration.Sender(argument: text)
            }
        } catch {
            throw UsageError(error.description)
        }
        if senders.isEmpty {
            guard dev else { throw UsageError("no sender: give --sender (console only with --dev)") }
            senders = [.console]
        }
        let store: ServerConfiguration.Store
        let metricsAddress: (host: String, port: Int)?
        do throws(ServerStartError) {
            store = try ServerConfiguration.Store(argument: options.value("store") ?? "sqlite:otp.sqlite3")
            metricsAddress = try options.value("metrics-address").map { text throws(ServerStartError) in
                try ServerConfiguration.listenAddress(text)
            }
        } catch {
            throw UsageError(error.description)
        }
        let port = try OptionValue.integer(options.value("port") ?? "8080", "port", in: 0...65535)
        let timeout = try OptionValue.integer(
            options.value("connection-timeout") ?? "10", "connection-timeout", in: 1...3600)
        let threads = try OptionValue.integer(options.value("threads") ?? "2", "threads", in: 1...64)
        let floor = try options.value("check-floor").map { text throws(UsageError) in
            Duration.milliseconds(try OptionValue.integer(text, "check-floor", in: 0...5000))
        }
        let configuration = ServerConfiguration(
            host: options.value("host") ?? "127.0.0.1", port: port, apiKeys: keys, store: store,
            senders: senders,
            policy: policy, trustProxy: options.flag("trust-proxy"),
            secretFile: options.value("secret-file").flatMap { $0.isEmpty ? nil : $0 },
            metricsAddress: metricsAddress,
            threads: threads, connectionTimeout: .seconds(timeout),
            checkFloor: floor ?? ServerConfiguration.defaultCheckFloor, environment: environment)
        return (configuration, madeKey)
    }

    /// Lifts the soft open-file limit to the hard one, so idle connections cannot use up the descriptors.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else {
            return
        }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A fresh key for `--dev`: `dev_` and 32 hexadecimal digits.
    static func developmentKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return "dev_"
            + (0..<16).map { _ in
                let byte = UInt8.random(in: 0...255, using: &generator)
                return (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }.joined()
    }
}

/// Waits for the first of some signals, which it keeps from killing the process meanwhile.
///
/// The handlers run on a dispatch queue; this type is not isolated to the main actor, so calling
/// them there is safe.
final class SignalWaiter: @unchecked Sendable {
    // `sources` is written once in `init`; `received` and `waiter` are guarded by `lock`.
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?
    private var waiter: CheckedContinuation<Int32, Never>?

    init(signals: [Int32]) {
        let queue = DispatchQueue(label: "otp.signals")
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.deliver(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func deliver(_ number: Int32) {
        let continuation = lock.withLock { () -> CheckedContinuation<Int32, Never>? in
            if received == nil { received = number }
            defer { waiter = nil }
            return waiter
        }
        continuation?.resume(returning: number)
    }

    /// The first signal received, waiting for one if none has come yet.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let already = lock.withLock { () -> Int32? in
                if let received { return received }
                waiter = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }
}
