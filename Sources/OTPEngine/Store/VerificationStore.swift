import Foundation

/// How a store answers one of its steps: once, with the step's answer or the store's failure.
///
/// The store chooses the thread: the ``MemoryStore`` answers on the caller's, before the call
/// returns; the SQLite store on its connection's queue once the step is committed; the Redis store
/// on its connection's thread once Redis has replied. A reply must not block: work that may wait
/// goes to a task of its own.
public typealias StoreReply<Answer: Sendable> = @Sendable (Result<Answer, StoreError>) -> Void

/// Where verifications, idempotency keys, rate-limit counters, authenticator factors and the
/// lifecycle event outbox live.
///
/// The ``Verifier`` decides; the store executes. Each operation is planned by the engine as a
/// value (a ``StartStep``, a ``CheckStep``, a resend's lease, a ``TOTPFactor``'s judgement) and
/// the store performs it as one atomic step, answering a small value: a wrong code answers its
/// attempts left (``CheckAnswer/incorrect(attemptsLeft:)``), not a record, and nothing is thrown
/// but the store's own failure. Any number of verifiers (threads, processes, servers) sharing a
/// store stay consistent. Stores never read the clock: every time comes from the verifier as `now`,
/// and every rule is a transition of ``VerificationRecord`` or ``TOTPFactor``.
///
/// The three steps every request takes (``start(_:now:reply:)``, ``check(_:now:reply:)`` and
/// ``record(id:reply:)``) answer through a ``StoreReply``, on a thread the store chooses, so
/// that one signature serves a store that answers inline (memory), one with a queue (SQLite) and
/// one with a connection of its own (Redis), and a request that needs no waiting never leaves the
/// thread it arrived on. Awaiting forms of them are in an extension. The other steps are
/// `async`.
///
/// The protocol has 31 requirements: 17 here, 5 of ``LifecycleEventStore``, 6 of
/// ``TOTPFactorStore`` and 3 of ``FraudCounterStore`` (the SMS pumping guard's counters).
/// ``MemoryStore`` is the reference; the SQLite, Redis and PostgreSQL stores live in `OTPSQLite`,
/// `OTPRedis` and `OTPPostgres`, and the shared conformance suite holds every store to the same
/// answers.
///
/// A store's life is explicit: it is open from its initializer until ``shutdown()``.
/// Nothing is purged behind the caller's back: records, idempotency keys and rate counters
/// past their time go when ``purgeExpired(now:)`` runs, which ``Verifier/purgeExpired(every:clock:)``
/// does on a timer.
public protocol VerificationStore: LifecycleEventStore, TOTPFactorStore, FraudCounterStore {
    /// A start's one step: a live idempotency key replays (nothing taken or stored); else every
    /// permit or none; then the record is stored with its claim and its `pending` event.
    func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>)

    /// A check's one step: ``VerificationRecord/checkRefusal(at:)``, then the permits all or none,
    /// then ``VerificationRecord/check(candidateHash:now:)`` with its event, then the refunds when
    /// approved.
    func check(_ step: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>)

    /// The verification with an identifier, or `nil`.
    func record(id: String, reply: @escaping StoreReply<VerificationRecord?>)

    /// The live entry of an idempotency key at a time, or `nil`.
    func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry?

    /// Frees an idempotency key when it still belongs to the verification.
    func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError)

    /// Runs ``VerificationRecord/cancel()`` atomically, with the `canceled` event at `now`.
    func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome

    /// Runs ``VerificationRecord/beginResend(lease:maxSends:now:)`` atomically.
    func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError)
        -> BeginResendOutcome

    /// Runs ``VerificationRecord/finishResend(token:update:)`` atomically; a store that records
    /// events writes in the same step the event ``LifecycleEvent/caused(from:to:at:masking:)``
    /// gives (the replaced code's `expired`, when it expired before the sweep noted it).
    func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) async throws(StoreError) -> TransitionOutcome

    /// Runs ``VerificationRecord/abandonResend(token:)`` atomically.
    func abandonResend(id: String, token: String) async throws(StoreError)

    /// Takes every permit or none (``RatePermit/admit(storedArrival:now:)``), atomically.
    func acquire(_ permits: [RatePermit], now: Date) async throws(StoreError) -> RateDecision

    /// Gives permits back (``RatePermit/refund(storedArrival:now:)``), atomically.
    func release(_ permits: [RatePermit], now: Date) async throws(StoreError)

    /// Deletes records, keys and counters that are no longer needed at a time; returns how many records went.
    func purgeExpired(now: Date) async throws(StoreError) -> Int

    /// Keeps a delivery attempt with its verification, for as long as the verification is kept;
    /// an attempt for a verification the store does not hold is dropped.
    ///
    /// It answers through a ``StoreReply``, as a start does: a start answers once its code is sent
    /// and hands its first attempt here without waiting, and the verifier holds reads of the
    /// verification's attempts until the reply comes.
    func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>)

    /// A verification's delivery attempts, oldest first; none for a verification not held.
    func deliveries(id: String) async throws(StoreError) -> [DeliveryAttempt]

    /// The verifications a query finds at a time, newest first (by creation time, then id), at
    /// most `query.limit` of them.
    func verifications(
        matching query: VerificationQuery, now: Date
    ) async throws(StoreError)
        -> [VerificationRecord]

    /// Whether the store answers.
    func ping() async -> Bool

    /// Closes the store's connections or files; every later call throws ``StoreError`` and `ping` is false.
    ///
    /// The owner calls it once when it stops (a ``Verifier``'s server does when it stops);
    /// calling it again does nothing. Calls already running finish first.
    func shutdown() async
}

extension VerificationStore {
    /// ``start(_:now:reply:)``, awaited.
    public func start(_ step: StartStep, now: Date) async throws(StoreError) -> StartAnswer {
        try await Self.awaiting { start(step, now: now, reply: $0) }
    }

    /// ``check(_:now:reply:)``, awaited.
    public func check(_ step: CheckStep, now: Date) async throws(StoreError) -> CheckAnswer {
        try await Self.awaiting { check(step, now: now, reply: $0) }
    }

    /// ``record(id:reply:)``, awaited.
    public func record(id: String) async throws(StoreError) -> VerificationRecord? {
        try await Self.awaiting { record(id: id, reply: $0) }
    }

    /// ``noteDelivery(_:reply:)``, awaited.
    public func noteDelivery(_ attempt: DeliveryAttempt) async throws(StoreError) {
        try await Self.awaiting { noteDelivery(attempt, reply: $0) }
    }

    /// The answer of a step that replies through a ``StoreReply``.
    static func awaiting<Answer: Sendable>(
        _ step: (@escaping StoreReply<Answer>) -> Void
    ) async throws(StoreError) -> Answer {
        let answer: Result<Answer, StoreError> = await withCheckedContinuation { continuation in
            step { continuation.resume(returning: $0) }
        }
        return try answer.get()
    }
}
