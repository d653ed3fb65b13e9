import Foundation

/// Where verifications, idempotency keys and rate-limit counters live.
///
/// Every method that reads and then writes is one atomic step of the store, so any number
/// of ``Verifier``s sharing a store (threads, processes, servers) stay consistent. Stores
/// never read the clock: every time comes from the verifier as `now`, and every rule is a
/// transition of ``VerificationRecord``. ``MemoryStore`` is the reference; the SQLite and
/// Redis stores live in `OTPSQLite` and `OTPRedis`. Failures throw ``StoreError``.
///
/// A store's life is explicit: it is open from its initializer until ``shutdown()``.
/// Nothing is purged behind the caller's back: records, idempotency keys and rate
/// counters past their time go when ``purgeExpired(now:)`` runs, which
/// ``Verifier/purgeExpired(every:)`` does on a timer.
public protocol VerificationStore: Sendable {
    /// Stores a new verification and, with a claim, its idempotency key; a live key wins and nothing is stored.
    func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) async throws(StoreError)
        -> InsertOutcome

    /// The verification with an identifier, or `nil`.
    func record(id: String) async throws(StoreError) -> VerificationRecord?

    /// The live entry of an idempotency key at a time, or `nil`.
    func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry?

    /// Frees an idempotency key when it still belongs to the verification.
    func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError)

    /// Runs ``VerificationRecord/takeAttempt(now:)`` atomically.
    func takeAttempt(id: String, now: Date) async throws(StoreError) -> AttemptOutcome

    /// Judges a check in one atomic step: ``VerificationRecord/checkRefusal(at:)``, then the
    /// permits all or none, then ``VerificationRecord/check(candidateHash:now:)``, then the refunds
    /// when approved.
    ///
    /// A default built from the other steps exists, so a store of your own need not write it.
    func check(_ attempt: CheckAttempt, now: Date) async throws(StoreError) -> CheckOutcome

    /// Runs ``VerificationRecord/approve()`` atomically.
    func approve(id: String) async throws(StoreError) -> TransitionOutcome

    /// Runs ``VerificationRecord/cancel()`` atomically.
    func cancel(id: String) async throws(StoreError) -> TransitionOutcome

    /// ``approve(id:)`` at a time, which a store that records events gives the `approved` event.
    ///
    /// The default calls ``approve(id:)``.
    func approve(id: String, now: Date) async throws(StoreError) -> TransitionOutcome

    /// ``cancel(id:)`` at a time, which a store that records events gives the `canceled` event.
    ///
    /// The default calls ``cancel(id:)``.
    func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome

    /// Runs ``VerificationRecord/beginResend(lease:maxSends:now:)`` atomically.
    func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError)
        -> BeginResendOutcome

    /// Runs ``VerificationRecord/finishResend(token:update:)`` atomically.
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

    /// Whether the store answers.
    func ping() async -> Bool

    /// Closes the store's connections or files; every later call throws ``StoreError`` and `ping` is false.
    ///
    /// The owner calls it once when it stops (a ``Verifier``'s server does when it stops);
    /// calling it again does nothing. Calls already running finish first.
    func shutdown() async
}

extension VerificationStore {
    /// Calls ``approve(id:)``: a store that records no events needs no time.
    public func approve(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try await approve(id: id)
    }

    /// Calls ``cancel(id:)``: a store that records no events needs no time.
    public func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try await cancel(id: id)
    }
}

/// A store that can judge a check on the caller's thread, without suspending.
///
/// The server's HTTP threads use it to answer a check where the request arrived, instead of
/// handing it to Swift's task pool and back: the hop costs more than the check itself on the
/// memory and SQLite stores. The two methods mean exactly what ``VerificationStore/record(id:)``
/// and ``VerificationStore/check(_:now:)`` mean; they may block the calling thread for as long
/// as the store's own step takes, so only threads that may block call them.
public protocol ImmediateCheckStore: VerificationStore {
    /// ``VerificationStore/record(id:)``, on the caller's thread.
    func recordImmediately(id: String) throws(StoreError) -> VerificationRecord?

    /// ``VerificationStore/check(_:now:)``, on the caller's thread.
    func checkImmediately(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome
}

/// A store that can take a start's steps on the caller's thread, without suspending.
///
/// The server's HTTP threads use it, with an ``ImmediateCodeSender``, to answer a start where the
/// request arrived. Each method means exactly what the ``VerificationStore`` method of the same
/// name means; they may block the calling thread for as long as the store's own step takes, so
/// only threads that may block call them.
public protocol ImmediateStartStore: VerificationStore {
    /// ``VerificationStore/acquire(_:now:)``, on the caller's thread.
    func acquireImmediately(_ permits: [RatePermit], now: Date) throws(StoreError) -> RateDecision

    /// ``VerificationStore/release(_:now:)``, on the caller's thread.
    func releaseImmediately(_ permits: [RatePermit], now: Date) throws(StoreError)

    /// ``VerificationStore/insert(_:claim:now:)``, on the caller's thread.
    func insertImmediately(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) throws(StoreError) -> InsertOutcome

    /// ``VerificationStore/cancel(id:now:)``, on the caller's thread.
    func cancelImmediately(id: String, now: Date) throws(StoreError) -> TransitionOutcome
}

/// A store that takes a start's permits and stores its verification in one atomic step.
///
/// A start otherwise makes two store calls, ``VerificationStore/acquire(_:now:)`` and then
/// ``VerificationStore/insert(_:claim:now:)``; a store whose calls each cost a commit or a round
/// trip (SQLite) answers both in one. The step judges in the start's order: a live idempotency key
/// replays, then the permits all or none, then the record is stored with its claim. When it
/// throws, it has taken and stored nothing.
public protocol AtomicStartStore: VerificationStore {
    /// Takes every permit or none and, when all are taken and no live key replays, stores `record`
    /// (and `claim`), atomically.
    func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, taking permits: [RatePermit], now: Date
    ) async throws(StoreError) -> StartInsertOutcome
}

/// A store that judges a check on its own thread and calls back with the outcome.
///
/// Stores that queue their work (SQLite's connection queue, a Redis connection's pipeline) answer
/// a check this way without a task: the server hands the check over on its HTTP thread and the
/// store's thread answers the request. The outcome means exactly what
/// ``VerificationStore/check(_:now:)`` returns; `completion` runs once, on the store's thread, after
/// the step it reports is durable as the store makes any write durable, and it must not block.
public protocol QueuedCheckStore: VerificationStore {
    /// ``VerificationStore/check(_:now:)``, answered through `completion`.
    func check(
        _ attempt: CheckAttempt, now: Date,
        completion: @escaping @Sendable (Result<CheckOutcome, StoreError>) -> Void)
}
