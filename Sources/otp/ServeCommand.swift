import Dispatch
import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPServe

/// `otp serve`: the verification server, configured by options or `OTP_*` environment variables.
enum ServeCommand {
    static let usage = "usage: otp serve [options]"

    /// Runs the server until SIGTERM or SIGINT, reloading its key files on SIGHUP; returns the exit status.
    ///
    /// Bad options are told in plain text; from then on every line on standard error is a JSON log
    /// line, and the one line on standard output is the start line, in the same form.
    static func main(_ arguments: [String]) async -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let prepared: Prepared
        do throws(UsageError) {
            let options = try ParsedOptions.parse(
                arguments, specs: ServeOptions.all, environment: environment)
            if options.wantsHelp {
                print(
                    ParsedOptions.help(usage: usage, specs: ServeOptions.all) + "\n" + ServeSecrets.helpText)
                return 0
            }
            guard options.positional.isEmpty else {
                throw UsageError("unexpected argument \(options.positional[0])")
            }
            prepared = try prepare(options, environment: environment, log: RequestLog.standardError)
        } catch {
            printError("otp serve: \(error.message) (see otp serve --help)")
            return 2
        }
        let settings = prepared.settings
        let log = settings.server.requestLog
        for warning in prepared.warnings {
            log.log(.warning, warning)
        }
        if let key = prepared.developmentKey {
            log.log(.warning, "--dev: API key \(key) (development only; use --api-key-file in production)")
        }
        for warning in settings.server.policy.weakSettings() {
            log.log(.warning, warning)
        }
        if settings.senders.contains(where: \.isForDevelopmentOnly) {
            log.log(.warning, "the console sender prints codes to standard error: development only")
        }
        for sender in settings.senders {
            // An outbox of /dev/null keeps nothing: a benchmark's or a test's, not a mistake.
            if case .outbox(let path) = sender.base, path != "/dev/null" {
                log.log(
                    .warning,
                    "the outbox sender writes codes to \(path) and sends no SMS or email: development only; "
                        + "set --sender (OTP_SENDER) to a provider")
            }
        }
        raiseOpenFileLimit()
        let signals = SignalWaiter(signals: [SIGTERM, SIGINT, SIGHUP])
        let server: RunningServer
        do {
            server = try await ServeAssembly.start(settings)
        } catch {
            log.log(.error, error.commandLineDescription)
            log.flush()
            return 1
        }
        // Exactly one line on standard output, written at once so a pipe sees it immediately; the
        // same line goes to the log, unless both are the same file (a terminal shows it once).
        let started = RequestLog.line(.info, "listening on \(server.url)", [("url", server.url)], at: Date())
        FileHandle.standardOutput.write(Data(started.utf8))
        if !Self.outputIsLog() {
            log.log(.info, "listening on \(server.url)", ["url": server.url])
        }
        if let port = server.metricsPort, let address = settings.server.metricsAddress {
            let host = address.host.contains(":") ? "[\(address.host)]" : address.host
            log.log(
                .info, "/metrics and /healthz on http://\(host):\(port) (/metrics there only)",
                ["url": "http://\(host):\(port)"])
        }
        while true {
            let signal = await signals.next()
            guard signal == SIGHUP else {
                log.log(.info, "\(signal == SIGINT ? "SIGINT" : "SIGTERM"): finishing requests in flight")
                break
            }
            reload(prepared.keys, into: server, log: log)
        }
        await server.stop()
        return 0
    }

    /// What `otp serve` starts with: the settings, warnings to log, the `--dev` key if one was
    /// made, and where the reloadable keys come from.
    struct Prepared {
        var settings: ServeSettings
        var warnings: [String]
        var developmentKey: String?
        var keys: ServeKeys
    }

    /// Parses everything the options say into what ``main(_:)`` starts, logging to `log` at the
    /// options' level.
    static func prepare(
        _ options: ParsedOptions, environment: [String: String], log: RequestLog
    ) throws(UsageError) -> Prepared {
        let (settings, developmentKey, keys) = try makeSettings(options, environment: environment, log: log)
        return Prepared(
            settings: settings, warnings: warnings(options, settings: settings),
            developmentKey: developmentKey,
            keys: keys)
    }

    /// Reads the key files again and puts what they hold in force; a file that is wrong leaves
    /// everything as it was, and the log says why.
    @discardableResult
    static func reload(_ keys: ServeKeys, into server: RunningServer, log: RequestLog) -> Bool {
        do {
            let loaded = try keys.load()
            try server.replaceKeys(loaded.apiKeys, publishable: loaded.publishable)
            let ending = server.verifier.replaceTestDestinations(loaded.testDestinations)
            Task {
                let canceled = await ending.value
                guard canceled > 0 else { return }
                log.log(
                    .info,
                    "SIGHUP: canceled the pending verifications to test destinations taken off the list",
                    ["canceled": String(canceled)])
            }
            log.log(
                .info, "SIGHUP: reloaded the API keys, publishable keys and test destinations",
                [
                    "apiKeys": String(loaded.apiKeys.count),
                    "publishableKeys": String(loaded.publishable.count),
                    "testDestinations": String(loaded.testDestinations.count),
                ])
            return true
        } catch let error as UsageError {
            log.log(.error, "SIGHUP: reload failed; the keys in force stay", ["error": error.message])
        } catch {
            log.log(.error, "SIGHUP: reload failed; the keys in force stay", ["error": "\(error)"])
        }
        return false
    }

    /// Turns parsed options into serve settings, the `--dev` key if one was made, and the sources of
    /// the reloadable keys, or names the option that is wrong.
    static func makeSettings(
        _ options: ParsedOptions, environment given: [String: String], log: RequestLog = .silent
    ) throws(UsageError) -> (ServeSettings, developmentKey: String?, keys: ServeKeys) {
        typealias O = ServeOptions
        let environment = try ServeSecrets.resolve(given)
        var policy = try O.policy(from: options)
        let dev = options.flag(O.dev)
        var keySources = ServeKeys()
        keySources.fixedAPIKeys = try options.all(O.apiKey).filter { !$0.isEmpty }
        keySources.apiKeyFile = options.givenText(O.apiKeyFile.spec).flatMap { $0.isEmpty ? nil : $0 }
        let madeKey = dev ? developmentKey() : nil
        if let madeKey { keySources.fixedAPIKeys.append(madeKey) }
        keySources.fixedPublishable = try options.all(O.publishableKey).flatMap { $0 }
        keySources.publishableKeyFile = options.givenText(O.publishableKeyFile.spec).flatMap {
            $0.isEmpty ? nil : $0
        }
        keySources.fixedTestDestinations = try options.all(O.testDestination).flatMap { $0 }
        keySources.testDestinationFile = options.givenText(O.testDestinationFile.spec).flatMap {
            $0.isEmpty ? nil : $0
        }
        let loaded = try keySources.load()
        let keys = loaded.apiKeys
        policy.testDestinations = loaded.testDestinations
        var senders = try options.all(O.sender)
        if senders.isEmpty {
            guard dev else {
                throw UsageError(
                    "no sender: give --sender (OTP_SENDER), such as sms=twilio or smtp+starttls://HOST:587")
            }
            senders = [.console]
        }
        do throws(ServerStartError) {
            _ = try SenderSpec.routes(senders)
        } catch {
            throw UsageError(error.description)
        }
        if senders.contains(where: \.sendsPaidSMS) {
            // The pumping guard blocks by default only where blocks save money: a paid SMS sender.
            if try options.value(O.fraudGuard) == nil { policy.fraudGuard.mode = .on }
            if policy.globalSendsPerHour == nil { policy.globalSendsPerHour = O.defaultSMSCap }
            if policy.sendsPerCallingCodePerHour == nil {
                policy.sendsPerCallingCodePerHour = O.defaultCallingCodeCap
            }
        }
        let metrics = try options.value(O.metricsAddress)
        let proxies = try options.value(O.trustProxy, or: ServerSettings.trustedProxies.defaultValue)
        let perAddress =
            try options.value(O.maxConnectionsPerAddress)
            ?? (proxies > 0 ? 0 : O.defaultConnectionsPerAddress)
        let s = ServerSettings.self
        var server = ServerConfiguration(
            host: try options.value(O.host, or: s.host),
            port: try options.value(O.port, or: s.port.defaultValue),
            apiKeys: keys, policy: policy, trustedProxies: proxies,
            metricsAddress: metrics, threads: try options.value(O.threads, or: s.threads.defaultValue),
            maxConnectionsPerAddress: perAddress,
            connectionTimeout: try options.value(O.connectionTimeout, or: s.connectionTimeout.defaultValue),
            checkFloor: try options.value(O.checkFloor, or: s.checkFloor.defaultValue))
        server.publishableKeys = loaded.publishable
        var requestLog = log
        requestLog.minimumLevel = try options.value(O.logLevel, or: .info)
        server.requestLog = requestLog
        var startGuard: StartGuardSpec?
        // Read (and so checked) even without --start-guard, so a typo is never silently ignored.
        let failOpen = try options.value(O.startGuardFailure, or: false)
        if let url = try options.value(O.startGuard) {
            startGuard = StartGuardSpec(
                url: url, failOpen: failOpen, appliesToSecretKeys: options.flag(O.startGuardSecretKeys))
        }
        var store = try options.value(O.store, or: .sqlite(path: "otp.sqlite3"))
        let connections = try options.value(
            O.storeConnections, or: ServerSettings.storeConnections.defaultValue)
        if case .postgres(let url, let schema, _, let password) = store {
            store = .postgres(url: url, schema: schema, connections: connections, password: password)
        } else if options.isGiven(O.storeConnections.spec) {
            throw UsageError("--store-connections needs a postgres:// store")
        }
        var settings = ServeSettings(
            server: server, store: store,
            senders: senders,
            secretFile: try options.value(O.secretFile).flatMap { $0.isEmpty ? nil : $0 },
            environment: environment, hosted: try hostedSpec(options),
            signingKeyFiles: try options.all(O.signingKeyFile).filter { !$0.isEmpty }, startGuard: startGuard,
            eventsURL: try options.value(O.events))
        settings.eventDelivery.retryCap = .seconds(try options.value(O.eventsRetryMax, or: 600))
        settings.migrate = options.flag(O.migrate)
        settings.server.readyMaxEventBacklog = try options.value(
            O.readyMaxEventBacklog, or: ServerSettings.readyMaxEventBacklog.defaultValue)
        if let password = try options.value(O.storePasswordFile)
            ?? environment["OTP_STORE_PASSWORD"].flatMap({ $0.isEmpty ? nil : $0 })
        {
            guard settings.store.takesPassword else {
                throw UsageError(
                    "--store-password-file and OTP_STORE_PASSWORD are for a Redis or PostgreSQL store")
            }
            settings.store = settings.store.password(password)
        }
        if settings.store.lacksUserPassword {
            throw UsageError(
                "the Redis user in --store needs a password: give --store-password-file PATH or OTP_STORE_PASSWORD"
            )
        }
        settings.redisWaitReplicas = try options.value(O.redisWaitReplicas, or: 0)
        if settings.redisWaitReplicas > 0, !settings.store.isRedis {
            throw UsageError("--redis-wait-replicas is for a Redis store")
        }
        settings.allowVolatileFactors = options.flag(O.allowVolatileFactors)
        let storeLog = requestLog
        settings.storeReport = { line in storeLog.log(.warning, line) }
        settings.mailFrom = try options.value(O.mailFrom).flatMap { $0.isEmpty ? nil : $0 }
        if senders.contains(where: { $0.base.name == "smtp" }), settings.mailFrom == nil,
            settings.environment["OTP_SMTP_FROM"]?.isEmpty ?? true, policy.domain == nil,
            settings.hostedDomain == nil
        {
            throw UsageError(
                "the SMTP sender needs a From address: give --mail-from ADDRESS (OTP_SMTP_FROM) or --domain DOMAIN"
            )
        }
        return (settings, madeKey, keySources)
    }

    /// The hosted page the options ask for, or `nil` without `--public-url`.
    static func hostedSpec(_ options: ParsedOptions) throws(UsageError) -> HostedSpec? {
        typealias O = ServeOptions
        let origins = try options.all(O.hostedReturnOrigins).flatMap { $0 }
        let keyFiles = try options.all(O.signingKeyFile).filter { !$0.isEmpty }
        let publishable =
            !(try options.all(O.publishableKey)).isEmpty || options.isGiven(O.publishableKeyFile.spec)
        guard let url = try options.value(O.publicURL), !url.isEmpty else {
            if !origins.isEmpty {
                throw UsageError("--hosted-return-origins needs --public-url")
            }
            if !keyFiles.isEmpty, !publishable {
                throw UsageError("--signing-key-file needs --public-url or --publishable-key")
            }
            return nil
        }
        guard !origins.isEmpty else {
            throw UsageError("--public-url needs --hosted-return-origins: the origins the page may return to")
        }
        return HostedSpec(publicURL: url, returnOrigins: origins)
    }

    /// Whether standard output and standard error are one file (the same terminal, or `2>&1`).
    static func outputIsLog() -> Bool {
        var output = stat()
        var error = stat()
        guard fstat(STDOUT_FILENO, &output) == 0, fstat(STDERR_FILENO, &error) == 0 else { return false }
        return output.st_dev == error.st_dev && output.st_ino == error.st_ino
    }

    /// What the options deserve a warning for: an API key in the process list, the HMAC key file's place.
    static func warnings(_ options: ParsedOptions, settings: ServeSettings) -> [String] {
        var warnings: [String] = []
        if settings.store.holdsPassword {
            warnings.append(
                "the store URL holds a password, which others on this machine can read in the process list; "
                    + "use --store-password-file, PGPASSWORD or ~/.pgpass")
        }
        if case .sqlite(let path) = settings.store {
            // An existing database others can read holds every pending code's hash and destination.
            for file in [path, path + "-wal", path + "-shm"] {
                if let mode = SecretKey.restrictToOwner(path: file) {
                    warnings.append(
                        "the SQLite file \(file) had mode \(String(mode, radix: 8)), readable by others; it is now 600"
                    )
                }
            }
        }
        if options.isOnCommandLine(ServeOptions.store.spec),
            (try? options.value(ServeOptions.store))??.hasPassword == true
        {
            warnings.append(
                "the --store URL holds a password, visible in the process list: use --store-password-file or "
                    + "OTP_STORE_PASSWORD")
        }
        if options.isOnCommandLine(ServeOptions.apiKey.spec), !options.flag(ServeOptions.dev) {
            warnings.append(
                "an API key on the command line is visible in the process list: use --api-key-file or OTP_API_KEYS"
            )
        }
        if !options.isGiven(ServeOptions.globalSendsPerHour.spec),
            settings.senders.contains(where: \.sendsPaidSMS)
        {
            warnings.append(
                "a paid SMS sender runs with a global cap of \(settings.server.policy.globalSendsPerHour ?? 0) messages "
                    + "an hour and \(settings.server.policy.sendsPerCallingCodePerHour ?? 0) per country calling code "
                    + "(--global-sends-per-hour, --sends-per-calling-code-per-hour); pair it with --allowed-regions"
            )
        }
        let policy = settings.server.policy
        if policy.allowMultipartSMS {
            for language in TextLanguage.allCases {
                let text = MessageTemplate.templatedSMS(
                    code: String(repeating: "8", count: policy.codeFormat.length), appName: policy.appName,
                    policy: policy, language: language)
                let segments = SMSSegments.count(text)
                if segments > 1 {
                    warnings.append(
                        "the sms.\(language.rawValue) template takes \(segments) SMS segments, each billed")
                }
            }
        }
        let tests = settings.server.policy.testDestinations
        if !tests.isEmpty {
            warnings.append(
                "\(tests.count) test destination\(tests.count == 1 ? "" : "s") (\(tests.keys.sorted().map { Destination.mask(channel: $0.contains("@") ? .email : .sms, address: $0) }.joined(separator: ", "))) "
                    + "\(tests.count == 1 ? "sends" : "send") nothing and verify with a known code: keep them out of production"
            )
        }
        if settings.secretFile == nil, case .sqlite(let path) = settings.store {
            warnings.append(
                "the HMAC key file is \(path).secret, beside the database: keep it out of the database's "
                    + "backups, or give --secret-file")
        }
        return warnings
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

/// Receives some signals one at a time, in the order they came, and keeps them from killing the
/// process meanwhile.
///
/// The handlers run on a dispatch queue; this type is not isolated to the main actor, so calling
/// them there is safe.
final class SignalWaiter: @unchecked Sendable {
    // `sources` is written once in `init`; the rest is in `state`.
    private var sources: [DispatchSourceSignal] = []
    private let state = Locked(State())

    private struct State {
        /// Signals received and not yet taken by `next()`.
        var received: [Int32] = []
        /// The call to `next()` waiting for one.
        var waiter: CheckedContinuation<Int32, Never>?
    }

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

    /// Hands a signal to the waiting `next()`, or keeps it for the next one.
    func deliver(_ number: Int32) {
        let continuation = state.withLock { state -> CheckedContinuation<Int32, Never>? in
            guard let waiter = state.waiter else {
                state.received.append(number)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        continuation?.resume(returning: number)
    }

    /// The oldest signal not taken yet, waiting for one if none has come.
    func next() async -> Int32 {
        await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Int32? in
                if !state.received.isEmpty { return state.received.removeFirst() }
                state.waiter = continuation
                return nil
            }
            if let already { continuation.resume(returning: already) }
        }
    }
}
