import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPPhoneNumbers
import OTPServe

/// Every option of `otp serve`, each declared once with its parser, bounds and default.
enum ServeOptions {
    private static let policy = Policy.default

    private static func seconds(_ duration: Duration) -> String { String(duration.components.seconds) }

    /// An `N/SECONDS` rate limit within the policy's bounds.
    private static func rate(_ name: String, default limit: RateLimit, _ help: String) -> Option<RateLimit> {
        Option(
            name, "N/SECONDS", default: limit, defaultText: "\(limit.limit)/\(seconds(limit.window))", help
        ) {
            text throws(UsageError) in
            let (count, window) = try OptionValue.rate(
                text, name, limits: Policy.Bounds.rateLimit, seconds: Policy.Bounds.rateWindowSeconds)
            return RateLimit(limit: count, window: .seconds(window))
        }
    }

    static let host = Option.text("host", "HOST", default: ServerSettings.host, "the IP address to listen on")
    static let port = Option.integer(ServerSettings.port, "PORT", "the port to listen on; 0 picks a free one")
    static let apiKey = Option.text(
        "api-key", "KEY", defaultText: "none (required unless --dev)",
        "an API key clients send as Authorization: Bearer KEY; repeatable", repeatable: true,
        alsoFrom: ["OTP_API_KEYS"])
    static let apiKeyFile = Option(
        "api-key-file", "PATH", defaultText: "none",
        "a file of API keys, one per line (kept out of the process list, unlike --api-key)"
    ) { path throws(UsageError) -> [String] in
        let text = try privateText(path, flag: "--api-key-file")
        let keys = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !keys.isEmpty else { throw UsageError("--api-key-file: \(path) holds no key") }
        return keys
    }
    static let dev = Flag("dev", "development: generate and print an API key, console sender unless --sender")
    static let store = Option(
        "store", "STORE", default: StoreSpec.sqlite(path: "otp.sqlite3"), defaultText: "sqlite:otp.sqlite3",
        "memory | sqlite:PATH | redis://[USER@]HOST:PORT[/DB] | redis-sentinel://[USER@]HOST:PORT[,HOST:PORT…]/PRIMARY[/DB]"
            + " | postgres://USER@HOST[:PORT]/DB[?sslmode=…&schema=…]"
    ) { text throws(UsageError) in
        do throws(ServerStartError) { return try StoreSpec(argument: text) } catch {
            throw UsageError(error.description)
        }
    }
    static let storeConnections = Option.integer(
        ServerSettings.storeConnections, "N", "connections to a PostgreSQL store (calls wait for a free one)")
    static let storePasswordFile = Option(
        "store-password-file", "PATH",
        defaultText: "none (OTP_STORE_PASSWORD; PostgreSQL: PGPASSWORD or ~/.pgpass)",
        "a file holding the Redis or PostgreSQL store's password, private to its owner, or to root and its group (kept out of the process list)"
    ) { path throws(UsageError) -> String in
        let password = try privateText(path, flag: "--store-password-file").trimmingCharacters(
            in: .newlines)
        guard !password.isEmpty else { throw UsageError("--store-password-file: \(path) is empty") }
        return password
    }
    static let redisWaitReplicas = Option.integer(
        "redis-wait-replicas", "N", in: 0...16, default: 0,
        "Redis: each write waits for N replicas (WAIT) or fails, so a failover cannot lose it")
    static let allowVolatileFactors = Flag(
        "allow-volatile-factors",
        "use a Redis store that keeps nothing across a restart (authenticator factors would be lost)")
    static let migrate = Flag(
        "migrate", "bring an older store's schema up to date before serving (otp migrate does it alone)")
    static let sender = Option(
        "sender", "SENDER", defaultText: "console with --dev, else none (required)",
        "[sms=|email=]console | outbox:PATH | smtp://HOST[:PORT] | smtp+starttls://… | smtps://… | webhook:URL | "
            + "twilio; repeatable, one sender per channel (smtp is email's, twilio sms's, the others both unless "
            + "prefixed)", repeatable: true
    ) { text throws(UsageError) in
        do throws(ServerStartError) { return try SenderSpec(argument: text) } catch {
            throw UsageError(error.description)
        }
    }
    static let mailFrom = Option.text(
        "mail-from", "ADDRESS", defaultText: "no-reply@DOMAIN with --domain (SMTP needs one of them)",
        "the From address of email sent through SMTP", alsoFrom: ["OTP_SMTP_FROM"])
    static let logLevel = Option(
        "log-level", "LEVEL", default: LogLevel.info, defaultText: "info",
        "the least level of log lines written to standard error: debug, info, warning or error"
    ) { text throws(UsageError) -> LogLevel in
        guard let level = LogLevel(name: text) else {
            throw UsageError("--log-level must be debug, info, warning or error, not \(text)")
        }
        return level
    }
    static let appName = Option.text(
        "app-name", "NAME", default: policy.appName, "the app's name in messages")
    static let domain = Option.text(
        "domain", "DOMAIN", defaultText: "none", "the web domain codes are bound to (@DOMAIN #CODE)")
    static let androidAppHash = Option.text(
        "android-app-hash", "HASH", defaultText: "none", "the Android SMS Retriever app hash (11 characters)")
    static let codeLength = Option.integer(
        "code-length", "N", in: 4...8, default: policy.codeLength, "digits per code, 4 to 8")
    static let maxAttempts = Option.integer(
        "max-attempts", "N", in: Policy.Bounds.maxAttempts, default: policy.maxAttempts, "attempts per code")
    static let totpMaxFailures = Option.integer(
        "totp-max-failures", "N", in: 1...100, default: policy.totpMaxFailures,
        "failed authenticator checks in a row that lock a TOTP factor (NIST SP 800-63B: at most 100)")
    static let codeLifetime = Option(
        "code-lifetime", "SECONDS", default: policy.codeLifetime, defaultText: seconds(policy.codeLifetime),
        "how long a code works"
    ) { text throws(UsageError) in
        .seconds(try OptionValue.integer(text, "code-lifetime", in: Policy.Bounds.codeLifetimeSeconds))
    }
    static let resendCooldowns = Option(
        "resend-cooldowns", "LIST", default: policy.resendCooldowns,
        defaultText: policy.resendCooldowns.map(seconds).joined(separator: ","),
        "seconds to wait before each resend; the last repeats"
    ) { text throws(UsageError) in
        try OptionValue.secondsList(
            text, "resend-cooldowns", in: Policy.Bounds.cooldownSeconds, count: Policy.Bounds.cooldownCount
        ).map { Duration.seconds($0) }
    }
    static let maxSends = Option.integer(
        "max-sends", "N", in: Policy.Bounds.maxSends, default: policy.maxSends,
        "codes one verification may send in all")
    static let startsPerDestination = rate(
        "limit-starts-per-destination", default: policy.startsPerDestination,
        "starts per phone number or email address")
    static let startsPerAddress = rate(
        "limit-starts-per-address", default: policy.startsPerAddress,
        "starts per client address (IPv6 by /64)")
    static let publishableStartsPerAddress = rate(
        "limit-publishable-starts-per-address", default: policy.ownerStartsPerAddress,
        "starts per client address through publishable keys (keys inside apps), on top of the rest")
    static let publishableKey = Option(
        "publishable-key", "NAME=pk_…", defaultText: "none",
        "a key for apps and pages: starts, sees, checks and resends only its own verifications",
        repeatable: true, alsoFrom: ["OTP_PUBLISHABLE_KEYS"]
    ) { text throws(UsageError) -> [(String, String)] in try publishablePairs(text, from: "--publishable-key")
    }
    static let publishableKeyFile = Option(
        "publishable-key-file", "PATH", defaultText: "none", "a file of NAME=pk_… lines"
    ) { path throws(UsageError) -> [(String, String)] in
        let text = try privateText(path, flag: "--publishable-key-file")
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        var pairs: [(String, String)] = []
        for line in lines { pairs += try publishablePairs(line, from: "--publishable-key-file") }
        return pairs
    }
    static let startGuard = Option(
        "start-guard", "webhook:URL", defaultText: "none",
        "ask this endpoint before each start sends a code (signed with OTP_START_GUARD_SECRET)"
    ) { text throws(UsageError) -> String in
        guard text.hasPrefix("webhook:"), text.count > "webhook:".count else {
            throw UsageError("--start-guard must be webhook:URL, not \(text)")
        }
        return String(text.dropFirst("webhook:".count))
    }
    static let events = Option(
        "events", "webhook:URL", defaultText: "none",
        "post lifecycle events (pending, approved, canceled, expired, max_attempts_reached) here, "
            + "at least once, signed with OTP_EVENTS_SECRET"
    ) { text throws(UsageError) -> String in
        guard text.hasPrefix("webhook:"), text.count > "webhook:".count else {
            throw UsageError("--events must be webhook:URL, not \(text)")
        }
        return String(text.dropFirst("webhook:".count))
    }
    static let eventsRetryMax = Option.integer(
        "events-retry-max", "SECONDS", in: 1...86_400, default: 600,
        "the longest wait between two tries of an event (each wait doubles from 1 s up to this)")
    static let startGuardFailure = Option(
        "start-guard-failure", "open|closed", default: false, defaultText: "closed",
        "when the guard does not answer: open sends anyway, closed refuses the start"
    ) { text throws(UsageError) -> Bool in
        switch text {
        case "open": return true
        case "closed": return false
        default: throw UsageError("--start-guard-failure must be open or closed, not \(text)")
        }
    }
    static let startGuardSecretKeys = Flag(
        "start-guard-secret-keys", "judge starts by secret keys too (publishable keys' always are)")

    /// `NAME=pk_…` pairs, comma-separated.
    static func publishablePairs(_ text: String, from option: String) throws(UsageError) -> [(String, String)]
    {
        var pairs: [(String, String)] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, APIKeys.isValidName(parts[0]), APIKeys.isValidPublishableKey(parts[1])
            else {
                throw UsageError(
                    "\(option) takes NAME=pk_… (a name of 1-64 letters, digits, . _ or -, and pk_ with at least "
                        + "20 more characters)")
            }
            pairs.append((parts[0], parts[1]))
        }
        return pairs
    }

    static let testDestination = Option(
        "test-destination", "DEST=CODE", defaultText: "none",
        "a phone number or email that sends nothing and verifies with CODE (app review, CI); comma-separated",
        repeatable: true, alsoFrom: ["OTP_TEST_DESTINATIONS"]
    ) { text throws(UsageError) -> [(String, String)] in try testPairs(text, from: "--test-destination") }
    static let testDestinationFile = Option(
        "test-destination-file", "PATH", defaultText: "none", "a file of DEST=CODE lines"
    ) { path throws(UsageError) -> [(String, String)] in
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw UsageError("--test-destination-file: cannot read \(path)")
        }
        var pairs: [(String, String)] = []
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) })
        where !line.isEmpty && !line.hasPrefix("#") {
            pairs += try testPairs(line, from: "--test-destination-file")
        }
        return pairs
    }
    static let testDestinationsUnlimited = Flag(
        "test-destinations-unlimited", "test destinations skip the rate limits (never the attempts)")

    /// `DEST=CODE` pairs, comma-separated, each destination written as the server keeps it.
    static func testPairs(_ text: String, from option: String) throws(UsageError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, !parts[1].isEmpty,
                let destination = try? Destination.parse(parts[0], channel: nil)
            else {
                throw UsageError(
                    "\(option) takes DEST=CODE with a phone number or an email address, not \(item)")
            }
            pairs.append((destination.address, parts[1]))
        }
        return pairs
    }

    static let defaultLocale = Option(
        "default-locale", "LANGUAGE", default: TextLanguage.english, defaultText: "en",
        "the language of messages when a start names none: en, de, ar or ja"
    ) { text throws(UsageError) -> TextLanguage in
        guard let language = TextLanguage(identifier: text) else {
            throw UsageError("--default-locale must be one of en, de, ar, ja, not \(text)")
        }
        return language
    }
    static let templateDir = Option(
        "template-dir", "DIR", defaultText: "built-in templates",
        "message templates: sms.LANG.txt, email-subject.LANG.txt, email.LANG.txt with {code}, {app}, {minutes}"
    ) { path throws(UsageError) -> [TextLanguage: MessageTemplates.Texts] in try loadTemplates(path) }
    static let allowMultipartSMS = Flag(
        "allow-multipart-sms", "accept SMS templates longer than one segment (each segment is billed)")

    /// The text of a file of keys, which must be private (`SecretKey.isPrivate(mode:owner:)`): one
    /// others can read is refused, naming `chmod 600`, as the key files are.
    static func privateText(_ path: String, flag: String) throws(UsageError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try SecretKey.readPrivate(path: path, what: flag, limit: 1 << 20)
        } catch {
            throw UsageError("\(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("\(flag): \(path) is not UTF-8 text")
        }
        return text
    }

    /// The templates in a directory, each language's missing files taken from the built-in ones.
    static func loadTemplates(_ path: String) throws(UsageError) -> [TextLanguage: MessageTemplates.Texts] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            throw UsageError("--template-dir: cannot read \(path)")
        }
        var found: [TextLanguage: [String: String]] = [:]
        for name in names.sorted() where name.hasSuffix(".txt") {
            let parts = name.dropLast(4).split(separator: ".")
            guard parts.count == 2,
                ["sms", "email-subject", "email", "transaction"].contains(String(parts[0]))
            else {
                throw UsageError(
                    "--template-dir: \(name) is not sms.LANG.txt, email-subject.LANG.txt, email.LANG.txt "
                        + "or transaction.LANG.txt")
            }
            guard let language = TextLanguage(rawValue: String(parts[1])) else {
                throw UsageError("--template-dir: \(name): templates exist for en, de, ar and ja")
            }
            guard let text = try? String(contentsOfFile: path + "/" + name, encoding: .utf8) else {
                throw UsageError("--template-dir: cannot read \(name)")
            }
            found[language, default: [:]][String(parts[0])] = text.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        guard !found.isEmpty else { throw UsageError("--template-dir: \(path) holds no template") }
        var result: [TextLanguage: MessageTemplates.Texts] = [:]
        for (language, files) in found {
            // Each language's missing files come from its built-in texts.
            let builtIn = MessageTemplates.builtIn[language] ?? MessageTemplates.english
            result[language] = MessageTemplates.Texts(
                sms: files["sms"] ?? builtIn.sms,
                emailSubject: files["email-subject"] ?? builtIn.emailSubject,
                email: files["email"] ?? builtIn.email, transaction: files["transaction"])
        }
        return result
    }

    static let checksPerAddress = rate(
        "limit-checks-per-address", default: policy.checksPerAddress,
        "checks per client address, every check counted")
    static let failedChecksPerDestination = rate(
        "limit-failed-checks-per-destination", default: policy.failedChecksPerDestination,
        "incorrect codes per destination")
    static let failedChecksPerDestinationAndAddress = Option(
        "limit-failed-checks-per-destination-and-address", "N/SECONDS", defaultText: "none",
        "incorrect codes per destination from one client address, so a stranger cannot lock the owner out; "
            + "raise --limit-failed-checks-per-destination beside it"
    ) { text throws(UsageError) in
        let (count, window) = try OptionValue.rate(
            text, "limit-failed-checks-per-destination-and-address", limits: Policy.Bounds.rateLimit,
            seconds: Policy.Bounds.rateWindowSeconds)
        return RateLimit(limit: count, window: .seconds(window))
    }
    static let globalSendsPerHour = Option.integer(
        "global-sends-per-hour", "N", in: Policy.Bounds.globalSendsPerHour,
        defaultText: "\(ServeOptions.defaultSMSCap) with a paid SMS sender (twilio, webhook), else no cap",
        "messages the whole server may send per hour")

    /// The global cap a paid SMS sender gets when none is given: SMS pumping is then bounded in all.
    static let defaultSMSCap = 1000

    static let sendsPerCallingCodePerHour = Option.integer(
        "sends-per-calling-code-per-hour", "N", in: Policy.Bounds.globalSendsPerHour,
        defaultText: "\(ServeOptions.defaultCallingCodeCap) with a paid SMS sender, else no cap",
        "SMS one country calling code may take per hour, so one country cannot use up the global cap")

    /// A country's share of the default cap: a quarter.
    static let defaultCallingCodeCap = defaultSMSCap / 4
    static let allowedCallingCodes = Option(
        "allowed-calling-codes", "LIST", defaultText: "all",
        "country calling codes SMS may go to, such as 1,44"
    ) { text throws(UsageError) -> Set<String> in
        let codes = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !codes.isEmpty, codes.count <= 300,
            codes.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isNumber) })
        else {
            throw UsageError("--allowed-calling-codes must be calling codes such as 1,44, not \(text)")
        }
        return Set(codes)
    }
    static let allowedRegions = Option(
        "allowed-regions", "LIST", defaultText: "all",
        "ISO 3166 regions SMS may go to, such as US,CA,GB, read from the number (with --allowed-calling-codes, both must pass)"
    ) { text throws(UsageError) -> Set<String> in
        let regions = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).uppercased()
        }
        guard !regions.isEmpty, regions.allSatisfy({ !$0.isEmpty }) else {
            throw UsageError("--allowed-regions must be ISO 3166 regions such as US,CA,GB, not \(text)")
        }
        for region in regions where !LibPhoneNumberParser.isSupported(region: region) {
            throw UsageError(
                "--allowed-regions: \(region) is not a region libphonenumber knows (ISO 3166 alpha-2, such as US, GB)"
            )
        }
        return Set(regions)
    }
    static let smsNumberTypes = Option(
        "sms-number-types", "LIST",
        defaultText: PhoneNumberType.allCases.filter(PhoneNumberType.smsDefault.contains).map(\.rawValue)
            .joined(separator: ","),
        "number types SMS may go to: "
            + PhoneNumberType.allCases.filter { $0 != .unknown }.map(\.rawValue).joined(separator: ", ")
    ) { text throws(UsageError) -> Set<PhoneNumberType> in
        var types: Set<PhoneNumberType> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(
                of: "-", with: "_")
            guard let type = PhoneNumberType(rawValue: name), type != .unknown else {
                throw UsageError(
                    "--sms-number-types: \(item) is not a number type; use "
                        + PhoneNumberType.allCases.filter { $0 != .unknown }.map(\.rawValue).joined(
                            separator: ", "))
            }
            types.insert(type)
        }
        return types
    }
    static let fraudGuard = Option(
        "fraud-guard", "on|shadow|off",
        defaultText: "on with a paid SMS sender (twilio, webhook), else shadow",
        "the SMS pumping guard: on blocks prefixes whose conversion collapses, shadow only decides and logs"
    ) { text throws(UsageError) -> FraudGuardPolicy.Mode in
        guard let mode = FraudGuardPolicy.Mode(rawValue: text) else {
            throw UsageError("--fraud-guard must be on, shadow or off, not \(text)")
        }
        return mode
    }
    static let fraudWindow = Option.integer(
        "fraud-window", "SECONDS", in: 60...86_400, default: 3600,
        "the sliding window the pumping guard counts sends and approvals over")
    static let fraudMinSends = Option.integer(
        "fraud-min-sends", "N", in: 1...100_000, default: 20,
        "sends a prefix needs in the window before the pumping guard judges its conversion")
    static let fraudBlock = Option.integer(
        "fraud-block", "SECONDS", in: 60...2_592_000, default: 43_200,
        "how long a pumping prefix is blocked; each repeat block of it doubles")
    static let fraudSafeList = Option(
        "fraud-safe-list", "LIST|@FILE", defaultText: "none",
        "numbers or prefixes the pumping guard never blocks: +4479,+15550100 or @file (one a line)"
    ) { text throws(UsageError) -> [String] in try fraudSafeEntries(text) }

    /// The entries of `--fraud-safe-list`: a comma list, or `@path` to a file of entries (commas or
    /// lines, `#` comments); each `+` and 1 to 15 digits.
    static func fraudSafeEntries(_ text: String) throws(UsageError) -> [String] {
        var source = text
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError("--fraud-safe-list: cannot read \(path)")
            }
            source = contents.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }
                .joined(separator: ",")
        }
        let entries = source.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for entry in entries
        where !entry.hasPrefix("+") || entry.count < 2 || entry.count > 16
            || !entry.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
        {
            throw UsageError("--fraud-safe-list entries must be + and digits such as +4479, not \(entry)")
        }
        return entries
    }
    static let trustProxy = Option.integer(
        ServerSettings.trustedProxies, "N", defaultText: "0 (the socket's peer)",
        "N proxies of your own in front: the client address is X-Forwarded-For's Nth entry from the right")
    static let secretFile = Option.text(
        "secret-file", "PATH", defaultText: "STORE.secret next to a SQLite store",
        "the HMAC key file, created with a random key (mode 0600) when absent")
    static let publicURL = Option.text(
        "public-url", "URL", defaultText: "none (no hosted page)",
        "serve the hosted verification page: this server's public origin, https (http only on loopback)")
    static let hostedReturnOrigins = Option(
        "hosted-return-origins", "ORIGINS", defaultText: "none",
        "origins the hosted page may return to, comma-separated (exact: https://app.example)",
        repeatable: true
    ) { text throws(UsageError) -> [String] in
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
    static let signingKeyFile = Option.text(
        "signing-key-file", "PATH", defaultText: "STORE.signing-key next to a SQLite store",
        "an Ed25519 key file for approval tokens, created when absent (mode 0600); repeat to rotate: the first signs",
        repeatable: true)
    static let metricsAddress = Option(
        "metrics-address", "HOST:PORT", defaultText: "the main listener",
        "serve /metrics (then there only) and /healthz (also still on the main one) on a listener of their own"
    ) { text throws(UsageError) -> (host: String, port: Int) in
        do throws(ServerStartError) {
            return try ListenAddress.parse(text)
        } catch {
            throw UsageError(error.description)
        }
    }
    static let connectionTimeout = Option.duration(
        ServerSettings.connectionTimeout, "SECONDS", unit: .seconds(1),
        "drop a connection that stalls this long")
    static let checkFloor = Option.duration(
        ServerSettings.checkFloor, "MILLISECONDS", unit: .milliseconds(1),
        "the least time a check takes to answer, so right and wrong codes take as long (0: off)")
    static let threads = Option.integer(ServerSettings.threads, "N", "HTTP worker threads")
    static let readyMaxEventBacklog = Option.integer(
        ServerSettings.readyMaxEventBacklog, "N", "lifecycle events waiting above which /readyz answers 503")
    static let maxConnectionsPerAddress = Option.integer(
        ServerSettings.maxConnectionsPerAddress.name, "N", in: ServerSettings.maxConnectionsPerAddress.bounds,
        defaultText: "\(ServeOptions.defaultConnectionsPerAddress), or 0 (no limit) behind --trust-proxy",
        "open connections one client address may hold, so one host cannot take every slot (0: no limit)")

    /// Connections per address when none is given and clients connect directly.
    static let defaultConnectionsPerAddress = 64

    /// Every option, in the order help lists them.
    static let all: [OptionSpec] = [
        host.spec, port.spec, apiKey.spec, apiKeyFile.spec, dev.spec, store.spec, storeConnections.spec,
        storePasswordFile.spec, redisWaitReplicas.spec, allowVolatileFactors.spec, migrate.spec, sender.spec,
        mailFrom.spec, logLevel.spec, appName.spec,
        domain.spec,
        androidAppHash.spec, codeLength.spec, maxAttempts.spec, totpMaxFailures.spec, codeLifetime.spec,
        resendCooldowns.spec,
        maxSends.spec, startsPerDestination.spec, startsPerAddress.spec, checksPerAddress.spec,
        failedChecksPerDestination.spec, failedChecksPerDestinationAndAddress.spec, globalSendsPerHour.spec,
        sendsPerCallingCodePerHour.spec, allowedCallingCodes.spec, allowedRegions.spec, smsNumberTypes.spec,
        fraudGuard.spec, fraudWindow.spec, fraudMinSends.spec, fraudBlock.spec, fraudSafeList.spec,
        trustProxy.spec,
        secretFile.spec, publicURL.spec, hostedReturnOrigins.spec, signingKeyFile.spec, publishableKey.spec,
        publishableKeyFile.spec, publishableStartsPerAddress.spec, startGuard.spec, startGuardFailure.spec,
        startGuardSecretKeys.spec, events.spec, eventsRetryMax.spec, testDestination.spec,
        testDestinationFile.spec, testDestinationsUnlimited.spec, defaultLocale.spec, templateDir.spec,
        allowMultipartSMS.spec,
        metricsAddress.spec,
        connectionTimeout.spec, checkFloor.spec, threads.spec, readyMaxEventBacklog.spec,
        maxConnectionsPerAddress.spec,
    ]

    /// The policy the options describe.
    static func policy(from options: ParsedOptions) throws(UsageError) -> Policy {
        var policy = Policy.default
        policy.codeLength = try options.value(codeLength, or: policy.codeLength)
        policy.maxAttempts = try options.value(maxAttempts, or: policy.maxAttempts)
        policy.totpMaxFailures = try options.value(totpMaxFailures, or: policy.totpMaxFailures)
        policy.codeLifetime = try options.value(codeLifetime, or: policy.codeLifetime)
        policy.resendCooldowns = try options.value(resendCooldowns, or: policy.resendCooldowns)
        policy.maxSends = try options.value(maxSends, or: policy.maxSends)
        policy.startsPerDestination = try options.value(startsPerDestination, or: policy.startsPerDestination)
        policy.startsPerAddress = try options.value(startsPerAddress, or: policy.startsPerAddress)
        policy.checksPerAddress = try options.value(checksPerAddress, or: policy.checksPerAddress)
        policy.ownerStartsPerAddress = try options.value(
            publishableStartsPerAddress, or: policy.ownerStartsPerAddress)
        policy.failedChecksPerDestination = try options.value(
            failedChecksPerDestination, or: policy.failedChecksPerDestination)
        policy.failedChecksPerDestinationAndAddress = try options.value(failedChecksPerDestinationAndAddress)
        policy.globalSendsPerHour = try options.value(globalSendsPerHour)
        policy.sendsPerCallingCodePerHour = try options.value(sendsPerCallingCodePerHour)
        policy.allowedCallingCodes = try options.value(allowedCallingCodes)
        policy.allowedRegions = try options.value(allowedRegions)
        policy.smsNumberTypes = try options.value(smsNumberTypes, or: policy.smsNumberTypes)
        policy.fraudGuard.mode = try options.value(fraudGuard) ?? .shadow
        policy.fraudGuard.window = .seconds(try options.value(fraudWindow, or: 3600))
        policy.fraudGuard.minSends = try options.value(fraudMinSends, or: 20)
        policy.fraudGuard.blockDuration = .seconds(try options.value(fraudBlock, or: 43_200))
        policy.fraudGuard.safeList = try options.value(fraudSafeList) ?? []
        policy.appName = try options.value(appName, or: policy.appName)
        policy.domain = try options.value(domain).flatMap { $0.isEmpty ? nil : $0 }
        policy.androidAppHash = try options.value(androidAppHash).flatMap { $0.isEmpty ? nil : $0 }
        for (destination, code) in try options.all(testDestination).flatMap({ $0 })
            + (try options.value(testDestinationFile) ?? [])
        {
            policy.testDestinations[destination] = code
        }
        policy.testDestinationsUnlimited = options.flag(testDestinationsUnlimited)
        policy.defaultLocale = try options.value(defaultLocale, or: .english)
        policy.templates = MessageTemplates(overrides: try options.value(templateDir) ?? [:])
        policy.allowMultipartSMS = options.flag(allowMultipartSMS)
        return policy
    }
}
