import OTPCore

/// The numbers a ``Verifier`` plays by: code shape, attempts, lifetimes, cooldowns, sends and rate limits.
///
/// The defaults are those of the screen's design (6 digits, 3 attempts, 5 minutes,
/// cooldowns of 30, 60, 120 and 300 seconds, 5 sends) and these rate limits:
///
/// | limit | default |
/// |---|---|
/// | starts per destination | 5 per hour |
/// | starts per client address | 20 per 5 minutes |
/// | checks per client address | 60 per 5 minutes |
/// | failed checks per destination | 20 per 24 hours |
/// | sends in all, per hour | none |
///
/// IPv6 client addresses count by their /64 network.
public struct Policy: Sendable, Hashable {
    /// The defaults described above.
    public static let `default` = Policy()

    /// Characters in a code, 4–8 (clamped).
    public var codeLength: Int
    /// Attempts per code.
    public var maxAttempts: Int
    /// How long a code works.
    public var codeLifetime: Duration
    /// The wait before each further send; the last one repeats.
    public var resendCooldowns: [Duration]
    /// Codes a verification may send in all, the first included.
    public var maxSends: Int
    /// Starts per destination.
    public var startsPerDestination: RateLimit
    /// Starts per client address (IPv6 by /64).
    public var startsPerAddress: RateLimit
    /// Checks per client address (IPv6 by /64), every check counted.
    public var checksPerAddress: RateLimit
    /// Failed authenticator checks and recoveries in a row that lock a TOTP factor (NIST SP 800-63B
    /// allows at most 100).
    public var totpMaxFailures: Int = 10
    /// Starts per client address through publishable keys (keys that live in apps), on top of
    /// ``startsPerAddress``.
    public var ownerStartsPerAddress: RateLimit
    /// Incorrect codes per destination.
    public var failedChecksPerDestination: RateLimit
    /// Incorrect codes per destination from one client address, or `nil` to count by destination only.
    ///
    /// With it, someone who starts verifications to a number can spend only their own share of its
    /// failed checks, not lock its owner out; `failedChecksPerDestination` stays the ceiling, and is
    /// usually raised beside it (see THREATS.md, "Locking the owner out").
    public var failedChecksPerDestinationAndAddress: RateLimit?
    /// Messages the whole server may send per hour, or `nil` for no cap.
    public var globalSendsPerHour: Int?
    /// SMS one country calling code may take per hour, or `nil` for no cap of its own.
    public var sendsPerCallingCodePerHour: Int?
    /// Country calling codes SMS may go to (such as `"1"`, `"44"`), or `nil` for all.
    public var allowedCallingCodes: Set<String>?
    /// The channels offered.
    public var channels: Set<Channel>
    /// The app's name in messages: "Your <app name> code is …".
    public var appName: String
    /// The web domain codes are bound to (`@domain #code`), or `nil`.
    public var domain: String?
    /// The Android app's 11-character SMS Retriever hash, or `nil`.
    public var androidAppHash: String?
    /// How long a verification stays readable after its last code expires.
    public var retention: Duration
    /// Test destinations and their fixed codes, by destination as ``Destination/parse(_:channel:)``
    /// writes it (`+15555550100`, `review@example.org`): for app review, CI and load tests.
    ///
    /// A start or resend to one uses its code, and `otp serve` sends nothing for it; attempts,
    /// expiry, cooldowns and the check floor work as for any destination.
    public var testDestinations: [String: String] = [:]
    /// The fixed code of a test destination, matched as the server keeps destinations, emails
    /// without regard to case; `nil` for any other destination.
    public func testCode(for address: String) -> String? {
        Self.testCode(for: address, in: testDestinations)
    }

    /// The code of `address` among `destinations`, matched as ``testCode(for:)`` does.
    static func testCode(for address: String, in destinations: [String: String]) -> String? {
        if destinations.isEmpty { return nil }
        if let code = destinations[address] { return code }
        let lowered = address.lowercased()
        return destinations.first { $0.key.lowercased() == lowered }?.value
    }

    /// The language of messages when a start names none.
    public var defaultLocale: TextLanguage = .english
    /// The messages' wording per language: built-in, or the operator's overrides.
    public var templates = MessageTemplates()
    /// Whether an SMS may take more than one segment (providers bill each); otherwise a template
    /// that cannot fit one segment for the longest code is refused at start.
    public var allowMultipartSMS = false

    /// Whether test destinations skip the rate limits and send caps (they never skip attempts).
    public var testDestinationsUnlimited = false

    /// Creates a policy; every value has its default.
    public init(
        codeLength: Int = 6, maxAttempts: Int = 3, codeLifetime: Duration = .seconds(300),
        resendCooldowns: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(300)],
        maxSends: Int = 5,
        startsPerDestination: RateLimit = RateLimit(limit: 5, window: .seconds(3600)),
        startsPerAddress: RateLimit = RateLimit(limit: 20, window: .seconds(300)),
        checksPerAddress: RateLimit = RateLimit(limit: 60, window: .seconds(300)),
        ownerStartsPerAddress: RateLimit = RateLimit(limit: 5, window: .seconds(3600)),
        failedChecksPerDestination: RateLimit = RateLimit(limit: 20, window: .seconds(86_400)),
        failedChecksPerDestinationAndAddress: RateLimit? = nil,
        globalSendsPerHour: Int? = nil, sendsPerCallingCodePerHour: Int? = nil,
        allowedCallingCodes: Set<String>? = nil,
        channels: Set<Channel> = [.sms, .email], appName: String = "OTPKit", domain: String? = nil,
        androidAppHash: String? = nil, retention: Duration = .seconds(86_400)
    ) {
        self.codeLength = codeLength
        self.maxAttempts = maxAttempts
        self.codeLifetime = codeLifetime
        self.resendCooldowns = resendCooldowns
        self.maxSends = maxSends
        self.startsPerDestination = startsPerDestination
        self.startsPerAddress = startsPerAddress
        self.checksPerAddress = checksPerAddress
        self.ownerStartsPerAddress = ownerStartsPerAddress
        self.failedChecksPerDestination = failedChecksPerDestination
        self.failedChecksPerDestinationAndAddress = failedChecksPerDestinationAndAddress
        self.globalSendsPerHour = globalSendsPerHour
        self.sendsPerCallingCodePerHour = sendsPerCallingCodePerHour
        self.allowedCallingCodes = allowedCallingCodes
        self.channels = channels
        self.appName = appName
        self.domain = domain
        self.androidAppHash = androidAppHash
        self.retention = retention
    }

    /// The code format: `codeLength` digits, clamped to 4–8.
    public var codeFormat: CodeFormat {
        CodeFormat(length: codeLength, kind: .digits)
    }

    /// The wait after the given send (1 for the first) before the next one.
    public func cooldown(afterSend send: Int) -> Duration {
        guard let last = resendCooldowns.last else { return .zero }
        let index = max(0, send - 1)
        return index < resendCooldowns.count ? resendCooldowns[index] : last
    }

    /// The most guesses a verification can ever get: `maxSends × maxAttempts`.
    public var guessBudget: Int {
        max(1, maxSends) * max(1, maxAttempts)
    }

    /// Warnings for values weaker than recommended, one sentence each; empty when none.
    public func weakSettings() -> [String] {
        var warnings: [String] = []
        if maxAttempts > 10 {
            warnings.append(
                "maxAttempts is \(maxAttempts): more than 10 attempts per code makes guessing easier.")
        }
        if codeLifetime > .seconds(600) {
            warnings.append(
                "codeLifetime is \(StoreTime.milliseconds(codeLifetime) / 1000) s: codes living over 10 minutes "
                    + "give guessers more time.")
        }
        if codeFormat.length < 6 {
            warnings.append("codeLength is \(codeFormat.length): codes under 6 digits are easier to guess.")
        }
        if maxSends > 10 {
            warnings.append("maxSends is \(maxSends): more than 10 sends multiplies the guesses allowed.")
        }
        let code = String(repeating: "0", count: codeFormat.length)
        let full = MessageTemplate.smsText(code: code, appName: appName, policy: self)
        if MessageTemplate.smsByteCount(full) > MessageTemplate.smsByteLimit {
            let fitted = MessageTemplate.fittedAppName(code: code, policy: self)
            warnings.append(
                "appName is cut to \"\(fitted)\" in SMS to keep them within \(MessageTemplate.smsByteLimit) bytes."
            )
        }
        return warnings
    }

    /// The ranges every number of a policy must stay within, so that no sum or product of them
    /// can overflow later (times are kept as 64-bit milliseconds).
    public enum Bounds {
        /// Attempts per code.
        public static let maxAttempts = 1...1_000_000
        /// Codes one verification may send.
        public static let maxSends = 1...1_000_000
        /// Seconds a code lives: up to a year.
        public static let codeLifetimeSeconds = 1...31_536_000
        /// Seconds of each resend cooldown: up to a year.
        public static let cooldownSeconds = 0...31_536_000
        /// How many cooldowns the list may hold.
        public static let cooldownCount = 64
        /// Requests a rate limit allows per window.
        public static let rateLimit = 1...1_000_000_000
        /// Seconds of a rate limit's window: up to a year.
        public static let rateWindowSeconds = 1...31_536_000
        /// Messages the whole server may send per hour.
        public static let globalSendsPerHour = 1...Int(Int32.max)
    }

    /// Settings that cannot work, one sentence each; a server should refuse to start on any.
    public func problems() -> [String] {
        var problems: [String] = []
        for (destination, code) in testDestinations.sorted(by: { $0.key < $1.key }) {
            if code.utf8.count != codeFormat.length || !code.allSatisfy(codeFormat.allows) {
                problems.append(
                    "the test destination \(destination) needs a code of \(codeFormat.length) digits, the code length."
                )
            }
        }
        func seconds(_ duration: Duration) -> Int64 { duration.components.seconds }
        if !(1...100).contains(totpMaxFailures) {
            problems.append("the TOTP failure limit must be 1 to 100 (NIST SP 800-63B allows at most 100).")
        }
        if !Bounds.maxAttempts.contains(maxAttempts) {
            problems.append("maxAttempts must be from 1 to \(Bounds.maxAttempts.upperBound).")
        }
        if !Bounds.maxSends.contains(maxSends) {
            problems.append("maxSends must be from 1 to \(Bounds.maxSends.upperBound).")
        }
        if codeLifetime <= .zero || seconds(codeLifetime) > Bounds.codeLifetimeSeconds.upperBound {
            problems.append("codeLifetime must be positive and at most a year.")
        }
        if resendCooldowns.count > Bounds.cooldownCount
            || resendCooldowns.contains(where: {
                $0 < .zero || seconds($0) > Bounds.cooldownSeconds.upperBound
            })
        {
            problems.append(
                "resendCooldowns must be at most \(Bounds.cooldownCount) durations from zero to a year.")
        }
        for (name, limit) in [
            ("startsPerDestination", startsPerDestination), ("startsPerAddress", startsPerAddress),
            ("checksPerAddress", checksPerAddress), ("ownerStartsPerAddress", ownerStartsPerAddress),
            ("failedChecksPerDestination", failedChecksPerDestination),
            (
                "failedChecksPerDestinationAndAddress",
                failedChecksPerDestinationAndAddress ?? RateLimit(limit: 1, window: .seconds(1))
            ),
        ]
        where limit.limit > Bounds.rateLimit.upperBound
            || seconds(limit.window) > Bounds.rateWindowSeconds.upperBound
        {
            problems.append(
                "\(name) must allow at most \(Bounds.rateLimit.upperBound) per window of up to a year.")
        }
        if let cap = globalSendsPerHour, !Bounds.globalSendsPerHour.contains(cap) {
            problems.append("globalSendsPerHour must be from 1 to \(Bounds.globalSendsPerHour.upperBound).")
        }
        if let cap = sendsPerCallingCodePerHour, !Bounds.globalSendsPerHour.contains(cap) {
            problems.append(
                "sendsPerCallingCodePerHour must be from 1 to \(Bounds.globalSendsPerHour.upperBound).")
        }
        if retention < .zero || seconds(retention) > Bounds.codeLifetimeSeconds.upperBound {
            problems.append("retention must be from zero to a year.")
        }
        if channels.isEmpty { problems.append("channels must offer sms or email.") }
        if let hash = androidAppHash, hash.count != 11 {
            problems.append("androidAppHash must be the 11-character app hash.")
        }
        if let domain, domain.isEmpty || domain.contains(where: { $0.isWhitespace || $0 == "#" }) {
            problems.append("domain must be a host name such as example.com.")
        }
        problems += templates.problems
        if !allowMultipartSMS {
            for language in TextLanguage.allCases {
                let text = MessageTemplate.templatedSMS(
                    code: String(repeating: "8", count: codeFormat.length), appName: "", policy: self,
                    language: language)
                let segments = SMSSegments.count(text)
                if segments > 1 {
                    problems.append(
                        "the sms.\(language.rawValue) template takes \(segments) SMS segments even without the app name "
                            + "(\(MessageTemplate.gsmSeptets(text) == nil ? "70 UCS-2" : "160 GSM-7") characters fit one): "
                            + "shorten it, or allow messages of several segments (allowMultipartSMS)")
                }
            }
        }
        let shortest = MessageTemplate.smsText(
            code: String(repeating: "0", count: codeFormat.length), appName: "", policy: self)
        let bytes = MessageTemplate.smsByteCount(shortest)
        if bytes > MessageTemplate.smsByteLimit {
            problems.append(
                "The SMS would be \(bytes) bytes even without the app name, over the "
                    + "\(MessageTemplate.smsByteLimit)-byte limit: shorten the domain.")
        }
        return problems
    }
}
