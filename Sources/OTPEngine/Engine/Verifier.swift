import Foundation
import OTPCore

/// The verification engine: start, check, resend, cancel and status, with the rules of the HTTP API.
///
/// Everything that must outlive a verifier lives in its ``VerificationStore``, so any number of
/// verifiers (threads, processes, servers) can share one store; a verifier keeps only what it can
/// do without (memos) and the delivery attempts it has handed to the store and not yet seen
/// written. Codes come from `random` (the system CSPRNG in production), are stored only as
/// HMAC-SHA256 under `secret`, are compared in constant time and are good once. Times come from
/// `now`.
///
/// Every method throws ``VerifierError``: the kind of refusal and its facts. The HTTP front
/// maps it to a status, an API error code and a sentence.
public final class Verifier: Sendable {
    /// The policy in force, with out-of-range values brought into range.
    public let policy: Policy
    let store: any VerificationStore
    /// The AES-256-GCM key TOTP factor secrets are sealed under, derived from the server's secret once.
    let factorBoxKey: [UInt8]
    /// What checks need of client addresses already seen, by the address as given (``CheckAddress``).
    let checkAddresses = BoundedMemo<String, CheckAddress>(bound: 16_384, stripes: 16)
    /// The permits of checks by verification and client address (``CheckPermits``).
    ///
    /// A check's one lookup when both were seen together before; a check of another pair loads its
    /// record first.
    let checkPermits = BoundedMemo<CheckPair, CheckPermits>(bound: 16_384, stripes: 16)
    let sender: any CodeSender
    /// The sender, when it can deliver on the caller's thread.
    let immediateSender: (any ImmediateCodeSender)?
    /// Where a message to one of the policy's test destinations goes instead of the sender: such a
    /// message is never handed to a provider.
    let testSink: @Sendable (OutgoingMessage) -> Void
    let hasher: CodeHasher
    let clock: @Sendable () -> Date
    /// Reads every phone number a start names: its validity, E.164 form, region and type.
    public let phoneNumbers: any PhoneNumberParser
    /// Masks destinations in answers and guard reports, in ``phoneNumbers``' grouping: the same
    /// choice the stores make for their events.
    let masking: DestinationMasking
    let random: SharedRandom
    /// The delivery attempts handed to the store and not yet answered for (``NotesInFlight``).
    let notesInFlight = NotesInFlight()
    /// The test destinations in force: the policy's at first, then whatever
    /// ``replaceTestDestinations(_:)`` last put in (a reload of their file).
    private let testDestinations: Locked<[String: String]>
    /// Sees every decision of the pumping guard (``FraudDecision``).
    let fraudDecisions: @Sendable (FraudDecision) -> Void

    /// How long a resend may take to deliver its code before another resend may take over.
    static let resendLeaseDuration: Duration = .seconds(60)

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - store: where verifications live.
    ///   - sender: delivers the codes.
    ///   - policy: the numbers to play by.
    ///   - secret: the HMAC key, at least 16 bytes (``SecretKey`` makes 32).
    ///   - now: the wall clock.
    ///   - random: the source of codes and identifiers; keep the default outside tests.
    ///   - testMessages: sees each message to one of ``Policy/testDestinations``, which is never
    ///     handed to `sender`; by default such messages go nowhere.
    ///   - phoneNumbers: reads phone numbers; ``E164SyntaxParser`` (the syntax alone) by default,
    ///     libphonenumber (`OTPPhoneNumbers`) in `otp serve`.
    ///   - fraudDecisions: sees each decision of the pumping guard (``Policy/fraudGuard``), on the
    ///     thread that made it; it must not block.
    public init(
        store: any VerificationStore, sender: any CodeSender, policy: Policy, secret: [UInt8],
        now: @escaping @Sendable () -> Date = { Date() },
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        testMessages: @escaping @Sendable (OutgoingMessage) -> Void = { _ in },
        phoneNumbers: any PhoneNumberParser = E164SyntaxParser(),
        fraudDecisions: @escaping @Sendable (FraudDecision) -> Void = { _ in }
    ) {
        self.phoneNumbers = phoneNumbers
        self.masking = DestinationMasking(phoneNumbers: phoneNumbers)
        self.fraudDecisions = fraudDecisions
        self.testSink = testMessages
        precondition(
            secret.count >= SecretKey.minimumByteCount, "the HMAC secret must have at least 16 bytes")
        var policy = policy
        policy.codeLength = policy.codeFormat.length
        policy.maxAttempts = max(1, policy.maxAttempts)
        policy.maxSends = max(1, policy.maxSends)
        if policy.codeLifetime <= .zero { policy.codeLifetime = .seconds(300) }
        self.policy = policy
        self.store = store
        self.sender = sender
        self.immediateSender = sender as? any ImmediateCodeSender
        self.hasher = CodeHasher(secret: secret)
        self.factorBoxKey = hasher.mac(Array("otpkit totp secret box v1".utf8))
        self.clock = now
        self.random = SharedRandom(random)
        self.testDestinations = Locked(policy.testDestinations)
    }

    /// Puts these test destinations in force in place of the current ones; calls already under way
    /// keep what they read.
    ///
    /// Verifications still pending to a destination taken off the list are canceled, by the task
    /// this returns (its value: how many). Their code is the fixed one, which proves nothing about
    /// the destination, and an approval now would carry no `test` claim: a backend that refuses
    /// test destinations would take it for a real one.
    @discardableResult
    public func replaceTestDestinations(_ destinations: [String: String]) -> Task<Int, Never> {
        let previous = testDestinations.withLock { current in
            defer { current = destinations }
            return current
        }
        let removed = previous.keys.filter { Policy.testCode(for: $0, in: destinations) == nil }
        return Task { [self] in
            var canceled = 0
            for destination in Set(removed.flatMap { [$0, $0.lowercased()] }) {
                let query = VerificationQuery(destination: destination, status: .pending, limit: 1000)
                let now = currentTime()
                guard
                    let found = try? await storeCall({ () async throws(StoreError) in
                        try await store.verifications(matching: query, now: now)
                    })
                else { continue }
                for record in found where (try? await cancel(id: record.id)) != nil { canceled += 1 }
            }
            return canceled
        }
    }

    /// The fixed code of a test destination in force, as ``Policy/testCode(for:)`` matches it.
    public func testCode(for address: String) -> String? {
        Policy.testCode(for: address, in: testDestinations.withLock { $0 })
    }

    /// The verification with an identifier as it reads now.
    public func status(id: String) async throws(VerifierError) -> Verification {
        let now = currentTime()
        let record = try await load(id)
        return view(record, at: now)
    }

    /// Cancels a pending, locked or expired verification.
    public func cancel(id: String) async throws(VerifierError) -> Verification {
        let now = currentTime()
        guard VerificationID.isWellFormed(id) else { throw .notFound }
        switch try await storeCall({ () async throws(StoreError) in try await store.cancel(id: id, now: now) }
        ) {
        case .done(let record): return view(record, at: now)
        case .notFound: throw .notFound
        case .notPending, .leaseLost: throw .notPending
        }
    }

    /// What an approval proves, for signing it: the destination and what the start bound to it.
    ///
    /// `nil` unless the verification exists and is approved.
    public func approvedSubject(id: String) async throws(VerifierError) -> ApprovedSubject? {
        guard VerificationID.isWellFormed(id) else { return nil }
        let found = try await storeCall { () async throws(StoreError) in try await store.record(id: id) }
        guard let record = found, record.state == .approved else { return nil }
        return ApprovedSubject(
            id: record.id, channel: record.channel, destination: record.destination,
            isTest: testCode(for: record.destination) != nil, ref: record.ref,
            transaction: record.transaction)
    }

    /// Hands a message to the sender, or to the test sink for a test destination, and answers the
    /// sender's receipt (an empty one for a test destination).
    func deliver(_ message: OutgoingMessage, isTest: Bool) async throws(DeliveryError) -> DeliveryReceipt {
        if isTest {
            testSink(message)
            return DeliveryReceipt()
        }
        return try await sender.sendWithReceipt(message)
    }

    /// The attempt a send of a verification's code made, noted at the current time.
    func attempt(
        _ id: String, channel: Channel, step: DeliveryAttempt.Step,
        _ result: Result<DeliveryReceipt, DeliveryError>
    ) -> DeliveryAttempt {
        switch result {
        case .success(let receipt):
            return DeliveryAttempt(
                verificationID: id, at: currentTime(), channel: channel, step: step, outcome: .sent,
                messageID: receipt.messageID)
        case .failure(let error):
            return DeliveryAttempt(
                verificationID: id, at: currentTime(), channel: channel, step: step, outcome: .failed,
                reason: error.reason)
        }
    }

    /// Hands an attempt to the store without waiting for it: readers of the verification's
    /// attempts, and its later attempts, wait for it in ``notesInFlight``.
    func noteBehind(_ attempt: DeliveryAttempt) {
        let id = attempt.verificationID
        notesInFlight.begin(id)
        store.noteDelivery(attempt) { [notesInFlight] _ in notesInFlight.end(id) }
    }

    /// Returns once the store has answered for every delivery attempt handed to it without waiting.
    ///
    /// A start's attempt is written behind its answer. A server that stops waits for this before
    /// it closes its store, so no attempt of an answered start is lost to the stop.
    public func deliveryAttemptsSettled() async {
        await notesInFlight.settledAll()
    }

    /// Notes an attempt in the store, after the verification's attempts already in flight; a
    /// store that fails to note it costs only the attempt.
    func note(_ attempt: DeliveryAttempt) async {
        await notesInFlight.settled(attempt.verificationID)
        try? await store.noteDelivery(attempt)
    }

    /// Whether the store answers.
    public func isHealthy() async -> Bool {
        await store.ping()
    }

    /// The lifecycle events waiting in the store's outbox, or `nil` when the store cannot say.
    public func eventBacklog() async -> Int? {
        try? await store.undeliveredEventCount()
    }

    /// Deletes what the store no longer needs now; returns how many verifications went.
    public func purgeExpired() async throws(VerifierError) -> Int {
        let now = currentTime()
        return try await storeCall { () async throws(StoreError) in try await store.purgeExpired(now: now) }
    }

    /// Purges every `interval` until the calling task is cancelled: the one place expired rows go.
    ///
    /// Stores purge nothing by themselves; a server runs this in a task of its own for as
    /// long as it runs (`OTPHTTP`'s server does, once a minute). A failed purge is tried
    /// again at the next tick.
    public func purgeExpired(every interval: Duration, clock: any Clock<Duration> = ContinuousClock()) async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
            _ = try? await purgeExpired()
        }
    }

    // MARK: - Shared parts

    /// The engine's time now, from its injected clock, to a whole millisecond.
    public var now: Date { currentTime() }

    /// The injected time, moved to a whole millisecond as the stores keep it.
    func currentTime() -> Date {
        StoreTime.truncated(clock())
    }

    /// The record with an identifier, or ``VerifierError/notFound``.
    func load(_ id: String) async throws(VerifierError) -> VerificationRecord {
        guard VerificationID.isWellFormed(id) else { throw .notFound }
        let found = try await storeCall { () async throws(StoreError) in try await store.record(id: id) }
        guard let found else { throw .notFound }
        return found
    }

    /// Runs a store call, turning its failure into ``VerifierError/Kind/storeUnavailable`` with the store's error.
    func storeCall<Result>(
        _ body: () async throws(StoreError) -> Result
    ) async throws(VerifierError) -> Result {
        do {
            return try await body()
        } catch {
            throw .storeUnavailable(error)
        }
    }

    /// Takes every permit or throws ``VerifierError/Kind/rateLimited`` with the wait.
    func acquire(_ permits: [RatePermit], now: Date) async throws(VerifierError) {
        guard !permits.isEmpty else { return }
        let decision = try await storeCall { () async throws(StoreError) in
            try await store.acquire(permits, now: now)
        }
        if case .denied(let wait, let key) = decision {
            throw .rateLimited(retryAfter: .milliseconds(wait), limit: Self.limit(ofKey: key))
        }
    }

    /// Gives permits back, on a best-effort basis: a failure here only makes a limit stricter.
    func release(_ permits: [RatePermit], now: Date) async {
        guard !permits.isEmpty else { return }
        try? await store.release(permits, now: now)
    }

    /// A fresh code for the policy's format.
    func newCode() -> String {
        random.withGenerator { CodeGenerator.code(for: policy.codeFormat, using: &$0) }
    }

    /// A fresh identifier for a verification created at `now`.
    func newID(at now: Date, owner: String? = nil) -> String {
        guard let owner else { return random.withGenerator { VerificationID.make(at: now, using: &$0) } }
        return random.withGenerator { generator in
            VerificationID.make(at: now, using: &generator) { base in ownerTag(owner: owner, base: base) }
        }
    }

    private func ownerTag(owner: String, base: String) -> [UInt8] {
        hasher.mac(Array("otpkit owner v1\u{0}\(owner)\u{0}\(base)".utf8))
    }

    /// Whether a verification was started by the publishable key named `owner`.
    ///
    /// Its identifier carries that name's tag, which only this server's secret makes. Identifiers of
    /// other owners, and of secret keys, answer `false`, in time that does not depend on where they differ.
    public func isStarted(_ id: String, by owner: String) -> Bool {
        guard let (base, tag) = VerificationID.ownerTag(of: id) else { return false }
        let expected = VerificationID.base64URL(Array(ownerTag(owner: owner, base: base).prefix(6)))
        return HMACSHA256.constantTimeEqual(Array(expected.utf8), Array(tag.utf8))
    }

    /// The stored form of a code; throws when the crypto library failed.
    func hash(
        id: String, code: String, transaction: TransactionDetails? = nil
    ) throws(VerifierError) -> [UInt8] {
        guard let hash = hasher.hash(id: id, code: code, binding: CodeHasher.binding(for: transaction))
        else { throw .internalFailure }
        return hash
    }

    /// An opaque rate-limit key; throws when the crypto library failed.
    func limitKey(_ purpose: String, _ value: String) throws(VerifierError) -> String {
        guard let key = hasher.opaqueKey(purpose, value) else { throw .internalFailure }
        return "\(purpose):\(key)"
    }

    /// The permits of the send caps that apply to a message for `address`: the global cap, and for
    /// SMS the cap of its country calling code.
    func sendCapPermits(channel: Channel, address: String) -> [RatePermit] {
        var permits: [RatePermit] = []
        if let cap = policy.globalSendsPerHour {
            permits.append(RatePermit(key: "gs", limit: RateLimit(limit: cap, window: .seconds(3600))))
        }
        if channel == .sms, let cap = policy.sendsPerCallingCodePerHour {
            let code = CallingCodes.callingCode(ofDigits: String(address.dropFirst()))
            permits.append(
                RatePermit(key: "gc:" + code, limit: RateLimit(limit: cap, window: .seconds(3600))))
        }
        return permits
    }

    /// Which limit a permit's key belongs to: its purpose is the part before the first colon.
    static func limit(ofKey key: String) -> VerifierError.Limit? {
        switch key.prefix(while: { $0 != ":" }) {
        case "sd": .startsPerDestination
        case "sa": .startsPerAddress
        case "so": .ownerStartsPerAddress
        case "sv": .startsPerDevice
        case "ca": .checksPerAddress
        case "fd": .failedChecksPerDestination
        case "fa": .failedChecksPerDestinationAndAddress
        case "gs": .globalSends
        case "gc": .sendsPerCallingCode
        default: nil
        }
    }

    /// The wire object for a record at a time; `masked`, the destination's masked form when the
    /// caller has it (a start, from the number it just read), saves finding it again.
    func view(_ record: VerificationRecord, at now: Date, masked: String? = nil) -> Verification {
        let status = record.status(at: now)
        let sendsLeft = max(0, policy.maxSends - record.sendsUsed)
        let open = status != .approved && status != .canceled && sendsLeft > 0
        return Verification(
            id: record.id, status: status, channel: record.channel,
            to: masked ?? masking.mask(channel: record.channel, address: record.destination),
            codeLength: record.codeLength, attemptsLeft: status == .locked ? 0 : max(0, record.attemptsLeft),
            sendsLeft: sendsLeft, expiresAt: record.expiresAt,
            resendAvailableAt: open ? record.resendAvailableAt : nil, createdAt: record.createdAt,
            ref: record.ref, transaction: record.transaction)
    }

    /// When the store may delete a record whose code expires at a time.
    func purgeTime(after expiresAt: Date) -> Date {
        expiresAt.adding(policy.retention)
    }
}
