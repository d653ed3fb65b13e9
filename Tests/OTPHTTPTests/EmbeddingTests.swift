import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// A store written here, in the test: dictionaries behind a lock, its rules from `VerificationRecord`,
/// `RatePermit` and `TOTPFactor`.
///
/// It is none of the package's stores, so a server that works on it takes any `VerificationStore`:
/// each of the protocol's requirements is written below, once, and each answers inline.
final class DictionaryStore: VerificationStore, @unchecked Sendable {
    private struct State {
        var records: [String: VerificationRecord] = [:]
        var keys: [String: IdempotencyEntry] = [:]
        var arrivals: [String: Int64] = [:]
        var factors: [String: TOTPFactor] = [:]
        var attempts: [String: [DeliveryAttempt]] = [:]
        var open = true
        var shutdowns = 0

        /// Takes every permit or none.
        mutating func take(_ permits: [RatePermit], now: Date) -> RateDecision {
            let (decision, taken) = RatePermit.admitAll(permits, now: StoreTime.milliseconds(now)) {
                arrivals[$0]
            }
            if decision == .allowed { for (key, arrival) in taken { arrivals[key] = arrival } }
            return decision
        }

        /// Gives permits back.
        mutating func give(_ permits: [RatePermit], now: Date) {
            for permit in permits {
                arrivals[permit.key] = permit.refund(
                    storedArrival: arrivals[permit.key], now: StoreTime.milliseconds(now))
            }
        }
    }

    // Guards `state`; every access holds it, so each call is one atomic step.
    private let lock = NSLock()
    private var state = State()

    /// How many times the owner shut the store down.
    var shutdowns: Int { lock.withLock { state.shutdowns } }

    private func step<T>(_ body: (inout State) -> T) throws(StoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard state.open else { throw StoreError("dictionary: shut down") }
        return body(&state)
    }

    private func change<T>(
        _ id: String, missing: T, _ body: (inout VerificationRecord) -> T
    ) throws(StoreError) -> T {
        try step { state in
            guard var record = state.records[id] else { return missing }
            let outcome = body(&record)
            state.records[id] = record
            return outcome
        }
    }

    /// Runs `body` as one step and replies with what it answered or threw.
    private func answer<T>(_ reply: StoreReply<T>, _ body: (inout State) -> T) {
        reply(Result { () throws(StoreError) in try step(body) })
    }

    func start(_ start: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        answer(reply) { state in
            if let claim = start.claim, let entry = state.keys[claim.key], entry.expiresAt > now {
                return .replay(entry)
            }
            if case .denied(let wait, let key) = state.take(start.permits, now: now) {
                return .denied(waitMilliseconds: wait, key: key)
            }
            if let claim = start.claim {
                state.keys[claim.key] = IdempotencyEntry(
                    verificationID: start.record.id, fingerprint: claim.fingerprint,
                    expiresAt: claim.expiresAt)
            }
            state.records[start.record.id] = start.record
            return .inserted
        }
    }

    func check(_ check: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>) {
        answer(reply) { state in
            guard var record = state.records[check.id] else { return .notFound }
            if let refusal = record.checkRefusal(at: now) { return refusal }
            if case .denied(let wait, let key) = state.take(check.permits, now: now) {
                return .rateLimited(waitMilliseconds: wait, key: key, attemptsLeft: record.attemptsLeft)
            }
            let judged = record.check(candidateHash: check.candidateHash, now: now)
            if case .approved = judged { state.give(check.refundsOnApproval, now: now) }
            state.records[check.id] = record
            return judged
        }
    }

    func record(id: String, reply: @escaping StoreReply<VerificationRecord?>) {
        answer(reply) { $0.records[id] }
    }

    func idempotencyEntry(key: String, now: Date) throws(StoreError) -> IdempotencyEntry? {
        try step { state in state.keys[key].flatMap { $0.expiresAt > now ? $0 : nil } }
    }

    func releaseIdempotencyKey(_ key: String, verificationID: String) throws(StoreError) {
        try step { state in
            if state.keys[key]?.verificationID == verificationID { state.keys[key] = nil }
        }
    }

    func cancel(id: String, now: Date) throws(StoreError) -> TransitionOutcome {
        try change(id, missing: .notFound) { $0.cancel() }
    }

    func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) throws(StoreError)
        -> BeginResendOutcome
    {
        try change(id, missing: .notFound) { $0.beginResend(lease: lease, maxSends: maxSends, now: now) }
    }

    func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) throws(StoreError)
        -> TransitionOutcome
    {
        try change(id, missing: .notFound) { $0.finishResend(token: token, update: update) }
    }

    func abandonResend(id: String, token: String) throws(StoreError) {
        try change(id, missing: ()) { $0.abandonResend(token: token) }
    }

    func acquire(_ permits: [RatePermit], now: Date) throws(StoreError) -> RateDecision {
        try step { $0.take(permits, now: now) }
    }

    func release(_ permits: [RatePermit], now: Date) throws(StoreError) {
        try step { $0.give(permits, now: now) }
    }

    func purgeExpired(now: Date) throws(StoreError) -> Int {
        try step { state in
            let before = state.records.count
            state.records = state.records.filter { $0.value.purgeAt > now }
            state.attempts = state.attempts.filter { state.records[$0.key] != nil }
            return before - state.records.count
        }
    }

    func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>) {
        reply(
            Result { () throws(StoreError) in
                try step { state in
                    if state.records[attempt.verificationID] != nil {
                        state.attempts[attempt.verificationID, default: []].append(attempt)
                    }
                }
            })
    }

    func deliveries(id: String) throws(StoreError) -> [DeliveryAttempt] {
        try step { $0.attempts[id] ?? [] }
    }

    func verifications(
        matching query: VerificationQuery, now: Date
    ) throws(StoreError) -> [VerificationRecord] {
        try step { state in
            Array(
                state.records.values.filter { query.matches($0, now: now) }
                    .sorted(by: VerificationQuery.newestFirst).prefix(query.limit))
        }
    }

    func ping() -> Bool { lock.withLock { state.open } }

    func shutdown() {
        lock.withLock {
            state.open = false
            state.shutdowns += 1
        }
    }

    // This store records no lifecycle events, like a package store not opened to record them.

    func claimEvents(now: Date, leaseUntil: Date, limit: Int) throws(StoreError) -> [OutboxEvent] {
        try step { _ in [] }
    }

    func eventDelivered(id: String) throws(StoreError) { try step { _ in } }

    func eventFailed(id: String, retryAt: Date, leasedUntil: Date) throws(StoreError) { try step { _ in } }

    func noteExpiries(now: Date, limit: Int) throws(StoreError) -> Int { try step { _ in 0 } }

    func undeliveredEventCount() throws(StoreError) -> Int { try step { _ in 0 } }

    func insertFactor(_ factor: TOTPFactor) throws(StoreError) {
        try step { $0.factors[factor.id] = factor }
    }

    func factor(id: String) throws(StoreError) -> TOTPFactor? { try step { $0.factors[id] } }

    func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) throws(StoreError) -> TOTPJudgement {
        try step { state in
            guard var factor = state.factors[id] else { return .notFound }
            defer { state.factors[id] = factor }
            return factor.judge(matchedStep: matchedStep, maxFailures: maxFailures, now: now)
        }
    }

    func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) throws(StoreError) -> TOTPRecovery {
        try step { state in
            guard var factor = state.factors[id] else { return .notFound }
            defer { state.factors[id] = factor }
            return factor.recover(hash: hash, maxFailures: maxFailures, now: now)
        }
    }

    func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) throws(StoreError) -> TOTPFactor? {
        try step { state in
            state.factors[id]?.recoveryHashes = hashes
            state.factors[id]?.usedRecoveryHashes = []
            return state.factors[id]
        }
    }

    func deleteFactor(id: String) throws(StoreError) -> Bool {
        try step { $0.factors.removeValue(forKey: id) != nil }
    }
}

/// The pumping guard's three steps, as a store that keeps no counters answers them: every count
/// zero and no block, so the guard never blocks on it.
extension DictionaryStore {
    func tallyFraud(_ tally: FraudTally, now: Date) throws(StoreError) -> FraudTotals {
        FraudTotals(
            counts: tally.keys.map { FraudCount(key: $0, sends: 0, approvals: 0) }, blocks: [], added: false)
    }

    func blockFraud(_ request: FraudBlockRequest, now: Date) throws(StoreError) -> FraudBlockState {
        FraudBlockState(key: request.key, until: now, repeats: 0, forgetAt: now, created: false)
    }

    func fraudCounts(since: Date) throws(StoreError) -> [FraudCount] { [] }
}

/// A sender written here, in the test: it keeps each message in memory.
final class MemorySender: CodeSender, @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [OutgoingMessage] = []

    func send(_ message: OutgoingMessage) throws(DeliveryError) {
        lock.withLock { messages.append(message) }
    }

    /// How many messages were sent.
    var count: Int { lock.withLock { messages.count } }

    /// The code in the last message for a verification: the digits after "code is ".
    func code(for id: String) -> String? {
        let text = lock.withLock { messages.last(where: { $0.verificationID == id })?.text }
        guard let text, let range = text.range(of: "code is ") else { return nil }
        return String(text[range.upperBound...].prefix { $0.isNumber })
    }
}

@Suite struct EmbeddingTests {
    @Test(
        "OTPHTTP serves the API on a store and a sender defined by the embedding program, and shuts the store down"
    )
    func ownStoreAndSender() async throws {
        let store = DictionaryStore()
        let sender = MemorySender()
        let server = try await OTPServerApp.start(
            ServerConfiguration(port: 0, apiKeys: ["embed-key"], checkFloor: .zero, requestLog: .silent),
            store: store, senders: [.sms: sender], secret: Array(repeating: 7, count: 32))
        let auth = [("Authorization", "Bearer embed-key")]
        let started = try await RawHTTP.request(
            port: server.port, method: "POST", path: "/v1/verifications", headers: auth,
            body: #"{"to":"+12125550100"}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        #expect(try await store.record(id: id)?.state == .pending)

        let email = try await RawHTTP.request(
            port: server.port, method: "POST", path: "/v1/verifications", headers: auth,
            body: #"{"to":"ana@example.org"}"#)
        #expect(email.errorCode == "channel_not_supported")

        let wrong = try await RawHTTP.request(
            port: server.port, method: "POST", path: "/v1/verifications/\(id)/check", headers: auth,
            body: #"{"code":"000000"}"#)
        let code = try #require(sender.code(for: id))
        if code != "000000" {
            #expect(wrong.status == 422)
            #expect((wrong.json["error"] as? [String: Any])?["attemptsLeft"] as? Int == 2)
        }
        let right = try await RawHTTP.request(
            port: server.port, method: "POST", path: "/v1/verifications/\(id)/check", headers: auth,
            body: "{\"code\":\"\(code)\"}")
        #expect(right.status == 200)
        #expect(right.json["status"] as? String == "approved")
        #expect(try await store.record(id: id)?.state == .approved)

        await server.stop()
        #expect(store.shutdowns == 1)
        #expect(!store.ping())
    }

    @Test("a server that cannot start shuts the store it was given down")
    func failedStartShutsDown() async {
        let store = DictionaryStore()
        await #expect(throws: ServerStartError.self) {
            try await OTPServerApp.start(
                ServerConfiguration(port: 0, apiKeys: ["k"], requestLog: .silent), store: store,
                senders: [:], secret: Array(repeating: 7, count: 32))
        }
        #expect(store.shutdowns == 1)
        let short = DictionaryStore()
        await #expect(throws: ServerStartError.self) {
            try await OTPServerApp.start(
                ServerConfiguration(port: 0, apiKeys: ["k"], requestLog: .silent), store: short,
                senders: [.sms: MemorySender()], secret: [1, 2, 3])
        }
        #expect(short.shutdowns == 1)
    }
}

@Suite struct VerifierErrorMappingTests {
    static let format = CodeFormat(length: 6)

    @Test(
        "each engine refusal becomes one wire error: code, status, sentence and numbers",
        arguments: [
            (VerifierError.notFound, OTPErrorCode.notFound, 404, ScreenText.english.notFound, nil, nil),
            (.notPending, .notPending, 409, ScreenText.english.notPending, nil, nil),
            (.notPending(attemptsLeft: 2), .notPending, 409, ScreenText.english.notPending, 2, nil),
            (.expired(attemptsLeft: 2), .expired, 410, ScreenText.english.expired, 2, nil),
            (.locked, .locked, 423, ScreenText.english.locked, 0, nil),
            (
                .incorrectCode(attemptsLeft: 2), .incorrectCode, 422, "Code doesn't match. 2 attempts left.",
                2, nil
            ),
            (
                .incorrectCode(attemptsLeft: 1), .incorrectCode, 422, "Code doesn't match. 1 attempt left.",
                1, nil
            ),
            (.incorrectCode(attemptsLeft: 0), .incorrectCode, 422, ScreenText.english.locked, 0, nil),
            (
                .invalidCodeFormat(format, attemptsLeft: 3), .invalidCodeFormat, 400, "Enter all 6 digits.",
                3, nil
            ),
            (
                .rateLimited(retryAfter: .seconds(720)), .rateLimited, 429,
                "Too many tries. Try again in 12:00.", nil, 720
            ),
            (
                .rateLimited(retryAfter: .milliseconds(1)), .rateLimited, 429,
                "Too many tries. Try again in 0:01.", nil, 1
            ),
            (
                .resendTooSoon(retryAfter: .milliseconds(24_500)), .resendTooSoon, 429, "Resend in 0:25", nil,
                25
            ),
            (
                .maxSendsReached(retryAfter: .seconds(200)), .maxSendsReached, 429,
                ScreenText.english.maxSendsReached, nil, 200
            ),
            (.deliveryFailed(.start), .deliveryFailed, 502, ScreenText.english.startFailed, nil, nil),
            (.deliveryFailed(.resend), .deliveryFailed, 502, ScreenText.english.deliveryFailed, nil, nil),
            (.invalidDestination, .invalidDestination, 400, ScreenText.english.invalidDestination, nil, nil),
            (
                .destinationChannelMismatch(destination: .sms), .channelNotSupported, 400,
                "Codes for a phone number can only be sent by SMS.", nil, nil
            ),
            (
                .destinationChannelMismatch(destination: .email), .channelNotSupported, 400,
                "Codes for an email address can only be sent by email.", nil, nil
            ),
            (
                .channelNotSupported(.sms), .channelNotSupported, 400, "Codes can't be sent by SMS here.",
                nil, nil
            ),
            (
                .channelNotSupported(.email), .channelNotSupported, 400, "Codes can't be sent by email here.",
                nil, nil
            ),
            (
                .callingCodeNotAllowed, .channelNotSupported, 400,
                "Codes can't be sent by SMS to this country.", nil,
                nil
            ),
            (
                .invalidIdempotencyKey, .invalidRequest, 400,
                "The Idempotency-Key must be 1 to 255 printable ASCII characters.", nil, nil
            ),
            (
                .idempotencyKeyReused, .idempotencyKeyReused, 422,
                "This Idempotency-Key was used with a different request.", nil, nil
            ),
            (
                .storeUnavailable(StoreError("down")), .storeUnavailable, 503,
                "The verification service is unavailable. Try again.", nil, nil
            ),
            (
                .internalFailure, .internalError, 500, "Something went wrong on the server. Try again.", nil,
                nil
            ),
            (
                .destinationBlocked(retryAfter: .milliseconds(43_199_500), reason: "pumping"),
                .destinationBlocked, 429, "Codes can't be sent to this number right now. Try again later.",
                nil,
                43_200
            ),
        ] as [(VerifierError, OTPErrorCode, Int, String, Int?, Int?)])
    func mapping(
        error: VerifierError, code: OTPErrorCode, status: Int, message: String, attemptsLeft: Int?,
        retryAfter: Int?
    ) {
        let wire = APIError(error)
        #expect(wire.code == code)
        #expect(wire.code.httpStatus == status)
        #expect(wire.message == message)
        #expect(wire.attemptsLeft == attemptsLeft)
        #expect(wire.retryAfter == retryAfter)
        #expect(wire.reason == (code == .destinationBlocked ? "pumping" : nil))
    }

    @Test(
        "a rate-limited check keeps the attempts left on the wire; the store's own error stays on the engine's"
    )
    func factsKept() {
        let limited = APIError(.rateLimited(retryAfter: .seconds(3), attemptsLeft: 2))
        #expect(limited.attemptsLeft == 2)
        #expect(limited.retryAfter == 3)
        let underlying = StoreError("sqlite: busy", underlying: CocoaError(.fileLocking))
        let error = VerifierError.storeUnavailable(underlying)
        #expect(error.storeError == underlying)
        #expect(String(describing: error).contains("sqlite: busy"))
        #expect(!APIError(error).message.contains("sqlite"))
    }
}
