import Foundation

/// A store in the process's memory: for tests, development and single-instance servers that may forget.
///
/// Each method is one atomic step under one lock, and runs on the caller's thread: a check is
/// judged without leaving it (``ImmediateCheckStore``). Expired records go when
/// ``purgeExpired(now:)`` runs; after ``shutdown()`` the store holds nothing and every call throws.
public final class MemoryStore: VerificationStore, ImmediateCheckStore {
    private let state = Locked(MemoryState())

    /// Creates an empty store.
    public init() {}

    /// The number of verifications held.
    public var count: Int { state.withLock { $0.records.count } }

    /// Stores a new verification and its idempotency key, unless the key is live.
    public func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) throws(StoreError) -> InsertOutcome {
        try state.withLock { (state) throws(StoreError) in try state.insert(record, claim: claim, now: now) }
    }

    /// The verification with an identifier.
    public func record(id: String) throws(StoreError) -> VerificationRecord? {
        try recordImmediately(id: id)
    }

    /// The verification with an identifier, on the caller's thread.
    public func recordImmediately(id: String) throws(StoreError) -> VerificationRecord? {
        try state.withLock { (state) throws(StoreError) in try state.record(id: id) }
    }

    /// The live entry of an idempotency key.
    public func idempotencyEntry(key: String, now: Date) throws(StoreError) -> IdempotencyEntry? {
        try state.withLock { (state) throws(StoreError) in try state.idempotencyEntry(key: key, now: now) }
    }

    /// Frees an idempotency key that still belongs to the verification.
    public func releaseIdempotencyKey(_ key: String, verificationID: String) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            try state.releaseIdempotencyKey(key, verificationID: verificationID)
        }
    }

    /// Takes one attempt.
    public func takeAttempt(id: String, now: Date) throws(StoreError) -> AttemptOutcome {
        try state.withLock { (state) throws(StoreError) in try state.takeAttempt(id: id, now: now) }
    }

    /// Approves a pending verification.
    public func approve(id: String) throws(StoreError) -> TransitionOutcome {
        try state.withLock { (state) throws(StoreError) in try state.approve(id: id) }
    }

    /// Cancels a pending verification.
    public func cancel(id: String) throws(StoreError) -> TransitionOutcome {
        try state.withLock { (state) throws(StoreError) in try state.cancel(id: id) }
    }

    /// Claims the next send.
    public func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) throws(StoreError) -> BeginResendOutcome {
        try state.withLock { (state) throws(StoreError) in
            try state.beginResend(id: id, lease: lease, maxSends: maxSends, now: now)
        }
    }

    /// Puts a resend's code in place.
    public func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) throws(StoreError) -> TransitionOutcome {
        try state.withLock { (state) throws(StoreError) in
            try state.finishResend(id: id, token: token, update: update, now: now)
        }
    }

    /// Gives up a resend's lease.
    public func abandonResend(id: String, token: String) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in try state.abandonResend(id: id, token: token) }
    }

    /// Takes every permit or none.
    public func acquire(_ permits: [RatePermit], now: Date) throws(StoreError) -> RateDecision {
        try state.withLock { (state) throws(StoreError) in try state.acquire(permits, now: now) }
    }

    /// Gives permits back.
    public func release(_ permits: [RatePermit], now: Date) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in try state.release(permits, now: now) }
    }

    /// Judges a check in one step: refusal, permits, attempt, comparison, approval and refunds.
    public func check(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome {
        try checkImmediately(attempt, now: now)
    }

    /// Judges a check in one step, on the caller's thread.
    public func checkImmediately(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome {
        try state.withLock { (state) throws(StoreError) in try state.check(attempt, now: now) }
    }

    /// Deletes what is no longer needed.
    public func purgeExpired(now: Date) throws(StoreError) -> Int {
        try state.withLock { (state) throws(StoreError) in try state.purgeExpired(now: now) }
    }

    /// Answers until shut down.
    public func ping() -> Bool { state.withLock { $0.ping() } }

    /// Forgets everything; every later call throws.
    public func shutdown() {
        state.withLock { $0.shutdown() }
    }
}

/// What a ``MemoryStore`` holds; every method runs under the store's lock.
private struct MemoryState {
    var records: [String: VerificationRecord] = [:]
    var idempotency: [String: IdempotencyEntry] = [:]
    var arrivals: [String: Int64] = [:]
    var isShutDown = false

    /// Stores a new verification and its idempotency key, unless the key is live.
    mutating func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) throws(StoreError) -> InsertOutcome {
        try open()
        if let claim {
            if let entry = idempotency[claim.key], entry.expiresAt > now {
                return .replay(entry)
            }
            idempotency[claim.key] = IdempotencyEntry(
                verificationID: record.id, fingerprint: claim.fingerprint, expiresAt: claim.expiresAt)
        }
        records[record.id] = record
        return .inserted
    }

    /// The verification with an identifier.
    mutating func record(id: String) throws(StoreError) -> VerificationRecord? {
        try open()
        return records[id]
    }

    /// The live entry of an idempotency key.
    mutating func idempotencyEntry(key: String, now: Date) throws(StoreError) -> IdempotencyEntry? {
        try open()
        guard let entry = idempotency[key], entry.expiresAt > now else { return nil }
        return entry
    }

    /// Frees an idempotency key that still belongs to the verification.
    mutating func releaseIdempotencyKey(_ key: String, verificationID: String) throws(StoreError) {
        try open()
        if idempotency[key]?.verificationID == verificationID {
            idempotency[key] = nil
        }
    }

    /// Takes one attempt.
    mutating func takeAttempt(id: String, now: Date) throws(StoreError) -> AttemptOutcome {
        try open()
        guard var record = records[id] else { return .notFound }
        let outcome = record.takeAttempt(now: now)
        records[id] = record
        return outcome
    }

    /// Approves a pending verification.
    mutating func approve(id: String) throws(StoreError) -> TransitionOutcome {
        try open()
        return transition(id) { $0.approve() }
    }

    /// Cancels a pending verification.
    mutating func cancel(id: String) throws(StoreError) -> TransitionOutcome {
        try open()
        return transition(id) { $0.cancel() }
    }

    /// Claims the next send.
    mutating func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) throws(StoreError) -> BeginResendOutcome {
        try open()
        guard var record = records[id] else { return .notFound }
        let outcome = record.beginResend(lease: lease, maxSends: maxSends, now: now)
        records[id] = record
        return outcome
    }

    /// Puts a resend's code in place.
    mutating func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) throws(StoreError) -> TransitionOutcome {
        try open()
        return transition(id) { $0.finishResend(token: token, update: update) }
    }

    /// Gives up a resend's lease.
    mutating func abandonResend(id: String, token: String) throws(StoreError) {
        try open()
        records[id]?.abandonResend(token: token)
    }

    /// Takes every permit or none.
    mutating func acquire(_ permits: [RatePermit], now: Date) throws(StoreError) -> RateDecision {
        try open()
        return take(permits, now: now)
    }

    /// Gives permits back.
    mutating func release(_ permits: [RatePermit], now: Date) throws(StoreError) {
        try open()
        give(permits, now: now)
    }

    /// Judges a check in one step: refusal, permits, attempt, comparison, approval and refunds.
    mutating func check(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome {
        try open()
        guard var record = records[attempt.id] else { return .notFound }
        if let refusal = record.checkRefusal(at: now) { return refusal }
        if case .denied(let wait, let key) = take(attempt.permits, now: now) {
            return .rateLimited(waitMilliseconds: wait, key: key, record)
        }
        let outcome = record.check(candidateHash: attempt.candidateHash, now: now)
        records[attempt.id] = record
        if case .approved = outcome { give(attempt.refundsOnApproval, now: now) }
        return outcome
    }

    private mutating func take(_ permits: [RatePermit], now: Date) -> RateDecision {
        let (decision, taken) = RatePermit.admitAll(permits, now: StoreTime.milliseconds(now)) {
            arrivals[$0]
        }
        for (key, arrival) in taken { arrivals[key] = arrival }
        return decision
    }

    private mutating func give(_ permits: [RatePermit], now: Date) {
        let nowMilliseconds = StoreTime.milliseconds(now)
        for permit in permits {
            arrivals[permit.key] = permit.refund(storedArrival: arrivals[permit.key], now: nowMilliseconds)
        }
    }

    /// Deletes what is no longer needed.
    mutating func purgeExpired(now: Date) throws(StoreError) -> Int {
        try open()
        let before = records.count
        records = records.filter { $0.value.purgeAt > now }
        idempotency = idempotency.filter { $0.value.expiresAt > now }
        let nowMilliseconds = StoreTime.milliseconds(now)
        arrivals = arrivals.filter { $0.value > nowMilliseconds }
        return before - records.count
    }

    /// Answers until shut down.
    func ping() -> Bool { !isShutDown }

    /// Forgets everything; every later call throws.
    mutating func shutdown() {
        isShutDown = true
        records = [:]
        idempotency = [:]
        arrivals = [:]
    }

    /// Throws once the store is shut down.
    func open() throws(StoreError) {
        if isShutDown { throw StoreError("memory: the store is shut down") }
    }

    private mutating func transition(
        _ id: String, _ change: (inout VerificationRecord) -> TransitionOutcome
    )
        -> TransitionOutcome
    {
        guard var record = records[id] else { return .notFound }
        let outcome = change(&record)
        records[id] = record
        return outcome
    }
}
