import Foundation

/// An in-memory verification server with scripted answers.
///
/// It keeps the rules of the real server (attempts, lock, expiry, resend
/// cooldowns, sends left) so previews, the terminal demo's offline mode and
/// tests behave like the real thing, and it can be told to fail a call.
public actor PreviewVerificationService: VerificationService {
    /// The rules the service plays by.
    public struct Configuration: Sendable {
        /// The codes sent, in order; the last one repeats.
        public var codes: [String]
        /// Attempts per code.
        public var maxAttempts: Int
        /// How long a code lives.
        public var codeLifetime: Duration
        /// Cooldown before each resend; the last one repeats.
        public var resendCooldowns: [Duration]
        /// Sends allowed per verification, the first included.
        public var maxSends: Int

        /// Creates a configuration; the defaults are those of UX.md, with the demo's 482019.
        public init(
            codes: [String] = ["482019"], maxAttempts: Int = 3, codeLifetime: Duration = .seconds(300),
            resendCooldowns: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(300)],
            maxSends: Int = 5
        ) {
            self.codes = codes.isEmpty ? ["482019"] : codes
            self.maxAttempts = maxAttempts
            self.codeLifetime = codeLifetime
            self.resendCooldowns = resendCooldowns.isEmpty ? [.seconds(30)] : resendCooldowns
            self.maxSends = max(1, maxSends)
        }
    }

    /// Which call a scripted failure answers.
    public enum Call: Sendable, Hashable {
        /// ``start(to:channel:)``.
        case start
        /// ``check(id:code:)``.
        case check
        /// ``resend(id:)``.
        case resend
    }

    private struct Record {
        var verification: Verification
        var code: String
        var sends: Int
    }

    private let configuration: Configuration
    private let now: @Sendable () -> Date
    private var records: [String: Record] = [:]
    private var scripted: [Call: [VerificationFailure]] = [:]
    private var lost: [Call: Int] = [:]
    private var nextID = 0
    /// Every code sent, in order, as a phone would receive them.
    public private(set) var sentCodes: [String] = []
    /// The locale each start through ``startAnswer(to:channel:locale:)`` asked for, in order.
    public private(set) var startLocales: [String?] = []
    /// How many starts were asked for, failed ones included.
    public private(set) var startCalls = 0
    /// How many checks were judged against a code.
    public private(set) var judgedChecks = 0

    /// Creates a service with rules and a wall clock.
    public init(
        configuration: Configuration = Configuration(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.now = now
    }

    /// Makes the next call of a kind fail with `failure`, before any rule is applied.
    public func failNext(_ call: Call, with failure: VerificationFailure) {
        scripted[call, default: []].append(failure)
    }

    /// The next such call is carried out, and its answer lost on the way back: the screen sees
    /// `networkFailure` for a step the server took.
    public func loseNextAnswer(_ call: Call) {
        lost[call, default: 0] += 1
    }

    /// Starts a verification; the code is ``Configuration/codes``' first.
    public func start(to destination: String, channel: Channel?) throws(VerificationFailure) -> Verification {
        startCalls += 1
        try takeScripted(.start)
        let trimmed = destination.trimmingCharacters(in: .whitespaces)
        let isEmail = trimmed.contains("@")
        guard !trimmed.isEmpty, isEmail || trimmed.hasPrefix("+") else { throw .invalidDestination }
        nextID += 1
        let id = "vf_preview\(nextID)"
        let code = configuration.codes[0]
        let created = now()
        let masked =
            isEmail
            ? "\(trimmed.prefix(1))•••@\(trimmed.split(separator: "@").last ?? "")"
            : "••• \(trimmed.suffix(4))"
        let verification = Verification(
            id: id, status: .pending, channel: channel ?? (isEmail ? .email : .sms), to: masked,
            codeLength: code.count, attemptsLeft: configuration.maxAttempts,
            sendsLeft: configuration.maxSends - 1, expiresAt: created + configuration.codeLifetime,
            resendAvailableAt: configuration.maxSends > 1 ? created + cooldown(afterSends: 1) : nil,
            createdAt: created)
        records[id] = Record(verification: verification, code: code, sends: 1)
        sentCodes.append(code)
        return verification
    }

    /// Checks a code by the real server's rules.
    public func check(id: String, code: String) throws(VerificationFailure) -> Verification {
        try takeScripted(.check)
        guard var record = records[id] else { throw .notFound }
        refreshExpiry(&record)
        defer { records[id] = record }
        switch record.verification.status {
        case .approved, .canceled: throw .notPending
        case .expired: throw .expired
        case .locked: throw .locked
        case .pending: break
        }
        let format = CodeFormat(length: record.code.count)
        guard let normalized = CodeNormalizer.wholeCode(code, for: format) else { throw .invalidCodeFormat }
        judgedChecks += 1
        record.verification.attemptsLeft -= 1
        if normalized == record.code {
            record.verification.status = .approved
            return record.verification
        }
        if record.verification.attemptsLeft == 0 { record.verification.status = .locked }
        throw .incorrectCode(attemptsLeft: record.verification.attemptsLeft)
    }

    /// Sends a new code by the real server's rules.
    public func resend(id: String) throws(VerificationFailure) -> Verification {
        try takeScripted(.resend)
        guard var record = records[id] else { throw .notFound }
        refreshExpiry(&record)
        defer { records[id] = record }
        if record.verification.status == .approved || record.verification.status == .canceled {
            throw .notPending
        }
        guard record.verification.sendsLeft > 0 else { throw .maxSendsReached }
        let current = now()
        if let available = record.verification.resendAvailableAt, available > current {
            throw .resendTooSoon(retryAfter: Int(available.timeIntervalSince(current).rounded(.up)))
        }
        let code = configuration.codes[min(record.sends, configuration.codes.count - 1)]
        record.sends += 1
        record.code = code
        record.verification.status = .pending
        record.verification.attemptsLeft = configuration.maxAttempts
        record.verification.sendsLeft -= 1
        record.verification.expiresAt = current + configuration.codeLifetime
        record.verification.resendAvailableAt =
            record.verification.sendsLeft > 0 ? current + cooldown(afterSends: record.sends) : nil
        sentCodes.append(code)
        return record.verification
    }

    /// Starts, remembering the locale asked for; answers with this service's time as the server's.
    public func startAnswer(
        to destination: String, channel: Channel?, locale: String?
    ) throws(VerificationFailure) -> ServerAnswer {
        startLocales.append(locale)
        return ServerAnswer(try start(to: destination, channel: channel), serverDate: now())
    }

    /// Checks; answers with this service's time as the server's.
    public func checkAnswer(id: String, code: String) throws(VerificationFailure) -> ServerAnswer {
        let result = Result { () throws(VerificationFailure) in try check(id: id, code: code) }
        try loseAnswer(.check)
        return ServerAnswer(try result.get(), serverDate: now())
    }

    /// Resends; answers with this service's time as the server's.
    public func resendAnswer(id: String) throws(VerificationFailure) -> ServerAnswer {
        let result = Result { () throws(VerificationFailure) in try resend(id: id) }
        try loseAnswer(.resend)
        return ServerAnswer(try result.get(), serverDate: now())
    }

    /// The verification as this service holds it, with its time as the server's.
    public func statusAnswer(id: String) throws(VerificationFailure) -> ServerAnswer {
        guard var record = records[id] else { throw .notFound }
        refreshExpiry(&record)
        records[id] = record
        return ServerAnswer(record.verification, serverDate: now())
    }

    private func loseAnswer(_ call: Call) throws(VerificationFailure) {
        guard let count = lost[call], count > 0 else { return }
        lost[call] = count - 1
        throw .networkFailure
    }

    private func takeScripted(_ call: Call) throws(VerificationFailure) {
        guard var queue = scripted[call], !queue.isEmpty else { return }
        let failure = queue.removeFirst()
        scripted[call] = queue
        throw failure
    }

    private func refreshExpiry(_ record: inout Record) {
        if record.verification.status == .pending || record.verification.status == .locked,
            now() >= record.verification.expiresAt
        {
            record.verification.status = .expired
        }
    }

    private func cooldown(afterSends sends: Int) -> Duration {
        configuration.resendCooldowns[min(sends - 1, configuration.resendCooldowns.count - 1)]
    }
}

extension Date {
    fileprivate static func + (date: Date, duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return date.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }
}
