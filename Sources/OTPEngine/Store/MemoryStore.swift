import Foundation
import OTPCore

/// A store in the process's memory: for tests, development and single-instance servers that may forget.
///
/// Each method is one atomic step under one lock, and runs on the caller's thread: a start, a
/// check and a read answer their ``StoreReply`` before they return. The records are spread over 64
/// dictionaries, so that growing one never holds the lock for long. Expired records go when
/// ``purgeExpired(now:)`` runs; after ``shutdown()`` the store holds nothing and every call throws.
public final class MemoryStore: VerificationStore {
    private let state: Locked<MemoryState>
    /// The pumping guard's counters and blocks (``FraudCounterStore``).
    let fraud = Locked(FraudCounters())

    /// Creates an empty store; with `recordsEvents`, it keeps an outbox of ``LifecycleEvent``s,
    /// their destinations masked by `eventMasking`.
    public init(recordsEvents: Bool = false, eventMasking: DestinationMasking = .plain) {
        var initial = MemoryState()
        initial.recordsEvents = recordsEvents
        initial.masking = eventMasking
        state = Locked(initial)
    }

    /// The number of verifications held.
    public var count: Int { state.withLock { $0.records.count } }

    /// Takes a start's one step (the idempotency key, the permits, the record), answering before
    /// it returns.
    public func start(_ step: StartStep, now: Date, reply: StoreReply<StartAnswer>) {
        reply(state.withLock { state in Result { () throws(StoreError) in try state.start(step, now: now) } })
    }

    /// Judges a check in one step (refusal, permits, attempt, comparison, approval and refunds),
    /// answering before it returns.
    public func check(_ step: CheckStep, now: Date, reply: StoreReply<CheckAnswer>) {
        reply(state.withLock { state in Result { () throws(StoreError) in try state.check(step, now: now) } })
    }

    /// Reads a verification, answering before it returns.
    public func record(id: String, reply: StoreReply<VerificationRecord?>) {
        reply(state.withLock { state in Result { () throws(StoreError) in try state.record(id: id) } })
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

    /// Cancels a pending verification, noting the event at `now`.
    public func cancel(id: String, now: Date) throws(StoreError) -> TransitionOutcome {
        try state.withLock { (state) throws(StoreError) in try state.cancel(id: id, now: now) }
    }

    /// Hands out the due events, one per verification, leased until `leaseUntil`.
    public func claimEvents(now: Date, leaseUntil: Date, limit: Int) throws(StoreError) -> [OutboxEvent] {
        try state.withLock { (state) throws(StoreError) in
            try state.claimEvents(now: now, leaseUntil: leaseUntil, limit: limit)
        }
    }

    /// Removes a delivered event.
    public func eventDelivered(id: String) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in try state.eventDelivered(id: id) }
    }

    /// Counts a failed delivery and sets the next try.
    public func eventFailed(id: String, retryAt: Date, leasedUntil: Date) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            try state.eventFailed(id: id, retryAt: retryAt, leasedUntil: leasedUntil)
        }
    }

    /// Notes `expired` for pending codes past their lifetime.
    public func noteExpiries(now: Date, limit: Int) throws(StoreError) -> Int {
        try state.withLock { (state) throws(StoreError) in try state.noteExpiries(now: now, limit: limit) }
    }

    // MARK: - TOTPFactorStore

    /// Stores a new factor.
    public func insertFactor(_ factor: TOTPFactor) throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            state.factors[factor.id] = factor
        }
    }

    /// The factor with an identifier.
    public func factor(id: String) throws(StoreError) -> TOTPFactor? {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            return state.factors[id]
        }
    }

    /// Judges a code under the lock.
    public func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) throws(StoreError) -> TOTPJudgement {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            guard var factor = state.factors[id] else { return .notFound }
            let judgement = factor.judge(matchedStep: matchedStep, maxFailures: maxFailures, now: now)
            state.factors[id] = factor
            return judgement
        }
    }

    /// Uses a recovery code under the lock.
    public func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) throws(StoreError) -> TOTPRecovery {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            guard var factor = state.factors[id] else { return .notFound }
            let recovery = factor.recover(hash: hash, maxFailures: maxFailures, now: now)
            state.factors[id] = factor
            return recovery
        }
    }

    /// Replaces the recovery codes.
    public func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) throws(StoreError) -> TOTPFactor? {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            state.factors[id]?.recoveryHashes = hashes
            state.factors[id]?.usedRecoveryHashes = []
            return state.factors[id]
        }
    }

    /// Deletes a factor.
    public func deleteFactor(id: String) throws(StoreError) -> Bool {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            return state.factors.removeValue(forKey: id) != nil
        }
    }

    /// The events not yet delivered.
    public func undeliveredEventCount() throws(StoreError) -> Int {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            return state.outbox.count
        }
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

    /// Deletes what is no longer needed.
    public func purgeExpired(now: Date) throws(StoreError) -> Int {
        let purged = try state.withLock { (state) throws(StoreError) in try state.purgeExpired(now: now) }
        fraud.withLock { $0.purge(now: now) }
        return purged
    }

    /// Throws once the store is shut down.
    func requireOpen() throws(StoreError) {
        try state.withLock { (state) throws(StoreError) in try state.open() }
    }

    /// Keeps a delivery attempt with its verification, answering before it returns.
    public func noteDelivery(_ attempt: DeliveryAttempt, reply: StoreReply<Void>) {
        reply(state.withLock { state in Result { () throws(StoreError) in try state.noteDelivery(attempt) } })
    }

    /// A verification's delivery attempts, oldest first.
    public func deliveries(id: String) throws(StoreError) -> [DeliveryAttempt] {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            return state.deliveries[id] ?? []
        }
    }

    /// The verifications a query finds, newest first: every record is looked at, under the lock.
    public func verifications(
        matching query: VerificationQuery, now: Date
    ) throws(StoreError)
        -> [VerificationRecord]
    {
        try state.withLock { (state) throws(StoreError) in
            try state.open()
            let found = state.records.values.filter { query.matches($0, now: now) }
            return Array(found.sorted(by: VerificationQuery.newestFirst).prefix(max(0, query.limit)))
        }
    }

    /// Answers until shut down.
    public func ping() -> Bool { state.withLock { $0.ping() } }

    /// Forgets everything; every later call throws.
    public func shutdown() {
        state.withLock { $0.shutdown() }
        fraud.withLock { $0 = FraudCounters() }
    }
}

/// What a ``MemoryStore`` holds; every method runs under the store's lock.
private struct MemoryState {
    var records = RecordShards()
    var idempotency: [String: IdempotencyEntry] = [:]
    var arrivals: [HashedKey: Int64] = [:]
    var isShutDown = false
    var recordsEvents = false
    /// How events mask their destinations.
    var masking = DestinationMasking.plain
    /// Events not yet delivered, in the order they happened.
    var outbox: [StoredEvent] = []
    /// The ids of every event noted per verification, until the verification is purged.
    var noted: [String: Set<String>] = [:]
    /// Authenticator factors by id.
    var factors: [String: TOTPFactor] = [:]
    /// Delivery attempts by verification, oldest first, until the verification is purged.
    var deliveries = IDShards<[DeliveryAttempt]>()

    struct StoredEvent {
        var event: LifecycleEvent
        var failures = 0
        var dueAt: Date
    }

    /// A start's one step: a live idempotency key replays, then the permits all or none, then the
    /// record is stored with its claim and its `pending` event.
    mutating func start(_ step: StartStep, now: Date) throws(StoreError) -> StartAnswer {
        try open()
        let record = step.record
        if let claim = step.claim, let entry = idempotency[claim.key], entry.expiresAt > now {
            return .replay(entry)
        }
        if case .denied(let wait, let key) = take(step.permits, now: now) {
            return .denied(waitMilliseconds: wait, key: key)
        }
        if let claim = step.claim {
            idempotency[claim.key] = IdempotencyEntry(
                verificationID: record.id, fingerprint: claim.fingerprint, expiresAt: claim.expiresAt)
        }
        records[record.id] = record
        let masking = masking
        note(LifecycleEvent.caused(from: nil, to: record, at: now, masking: masking))
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

    /// Cancels a pending verification.
    mutating func cancel(id: String, now: Date?) throws(StoreError) -> TransitionOutcome {
        try open()
        return transition(id, now: now) { $0.cancel() }
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
        // With `now`, a code that expired before the sweep noted it gets its `expired` here.
        return transition(id, now: now) { $0.finishResend(token: token, update: update) }
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
    mutating func check(_ step: CheckStep, now: Date) throws(StoreError) -> CheckAnswer {
        try open()
        // The record is judged where it is stored: one lookup and no copy to write back. The rate
        // counters are moved out for the while, so the judging can take their permits.
        var counters: [HashedKey: Int64] = [:]
        swap(&counters, &arrivals)
        defer { swap(&counters, &arrivals) }
        let keepsEvents = recordsEvents
        let masking = masking
        var event: LifecycleEvent?
        let answer = records.update(step.idKey) { record -> CheckAnswer in
            if let refusal = record.checkRefusal(at: now) { return refusal }
            if case .denied(let wait, let key) = Self.take(step.permits, from: &counters, now: now) {
                return .rateLimited(waitMilliseconds: wait, key: key, attemptsLeft: record.attemptsLeft)
            }
            let approved: Bool
            if keepsEvents {
                let before = record
                approved = record.takeAttempt(comparing: step.candidate)
                event = LifecycleEvent.caused(from: before, to: record, at: now, masking: masking)
            } else {
                approved = record.takeAttempt(comparing: step.candidate)
            }
            if approved {
                Self.give(step.refundsOnApproval, to: &counters, now: now)
                return .approved(record)
            }
            return .incorrect(attemptsLeft: record.attemptsLeft)
        }
        guard let answer else { return .notFound }
        note(event)
        return answer
    }

    private mutating func take(_ permits: [RatePermit], now: Date) -> RateDecision {
        Self.take(permits, from: &arrivals, now: now)
    }

    /// `RatePermit.admitAll`, without its list of new arrivals.
    ///
    /// The permits are judged first, and only when all pass is each counter moved on: a counter
    /// already stored where the judging found it, with no second lookup. As with `admitAll`, a key
    /// named twice ends with the arrival of the later permit.
    private static func take(
        _ permits: [RatePermit], from arrivals: inout [HashedKey: Int64], now: Date
    ) -> RateDecision {
        let nowMilliseconds = StoreTime.milliseconds(now)
        typealias Slot = (found: Dictionary<HashedKey, Int64>.Index?, arrival: Int64)
        return withUnsafeTemporaryAllocation(of: Slot.self, capacity: permits.count) { slots in
            var longestWait: Int64 = 0
            var refusing = 0
            for position in permits.indices {
                let found = arrivals.index(forKey: permits[position].counterKey)
                let stored = found.map { arrivals.values[$0] }
                switch permits[position].admit(storedArrival: stored, now: nowMilliseconds) {
                case .success(let arrival):
                    slots.initializeElement(at: position, to: (found, arrival))
                case .failure(let denial):
                    slots.initializeElement(at: position, to: (found, 0))
                    if denial.waitMilliseconds > longestWait {
                        longestWait = denial.waitMilliseconds
                        refusing = position
                    }
                }
            }
            guard longestWait == 0 else {
                return .denied(waitMilliseconds: longestWait, key: permits[refusing].key)
            }
            // Stored counters first: an insertion may move the others.
            for position in permits.indices {
                if let found = slots[position].found { arrivals.values[found] = slots[position].arrival }
            }
            for position in permits.indices where slots[position].found == nil {
                arrivals[permits[position].counterKey] = slots[position].arrival
            }
            return .allowed
        }
    }

    private mutating func give(_ permits: [RatePermit], now: Date) {
        Self.give(permits, to: &arrivals, now: now)
    }

    private static func give(_ permits: [RatePermit], to arrivals: inout [HashedKey: Int64], now: Date) {
        let nowMilliseconds = StoreTime.milliseconds(now)
        for permit in permits {
            let key = permit.counterKey
            arrivals[key] = permit.refund(storedArrival: arrivals[key], now: nowMilliseconds)
        }
    }

    /// Deletes what is no longer needed.
    mutating func purgeExpired(now: Date) throws(StoreError) -> Int {
        try open()
        let before = records.count
        records.keep { $0.purgeAt > now }
        noted = noted.filter { records[$0.key] != nil }
        let kept = records
        deliveries.keep(ids: { kept[$0] != nil })
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
        records.removeAll()
        idempotency = [:]
        arrivals = [:]
        outbox = []
        noted = [:]
        factors = [:]
        deliveries.removeAll()
    }

    /// Keeps an attempt when its verification is held.
    mutating func noteDelivery(_ attempt: DeliveryAttempt) throws(StoreError) {
        try open()
        let id = HashedKey(attempt.verificationID)
        guard records[id] != nil else { return }
        deliveries.update(id, default: []) { $0.append(attempt) }
    }

    /// Throws once the store is shut down.
    func open() throws(StoreError) {
        if isShutDown { throw StoreError("memory: the store is shut down") }
    }

    private mutating func transition(
        _ id: String, now: Date?, _ change: (inout VerificationRecord) -> TransitionOutcome
    )
        -> TransitionOutcome
    {
        guard var record = records[id] else { return .notFound }
        let before = record
        let outcome = change(&record)
        records[id] = record
        let masking = masking
        if let now { note(LifecycleEvent.caused(from: before, to: record, at: now, masking: masking)) }
        return outcome
    }

    /// Adds an event to the outbox, once per id, when the store records events.
    private mutating func note(_ event: @autoclosure () -> LifecycleEvent?) {
        guard recordsEvents, let event = event(),
            noted[event.verificationID, default: []].insert(event.id).inserted
        else { return }
        outbox.append(StoredEvent(event: event, dueAt: event.at))
    }

    mutating func claimEvents(now: Date, leaseUntil: Date, limit: Int) throws(StoreError) -> [OutboxEvent] {
        try open()
        var seen = Set<String>()
        var claimed: [OutboxEvent] = []
        for index in outbox.indices where claimed.count < limit {
            // Only a verification's oldest undelivered event may go, so they arrive in order.
            guard seen.insert(outbox[index].event.verificationID).inserted, outbox[index].dueAt <= now else {
                continue
            }
            outbox[index].dueAt = leaseUntil
            claimed.append(OutboxEvent(event: outbox[index].event, failures: outbox[index].failures))
        }
        return claimed
    }

    mutating func eventDelivered(id: String) throws(StoreError) {
        try open()
        outbox.removeAll { $0.event.id == id }
    }

    mutating func eventFailed(id: String, retryAt: Date, leasedUntil: Date) throws(StoreError) {
        try open()
        guard let index = outbox.firstIndex(where: { $0.event.id == id }), outbox[index].dueAt == leasedUntil
        else { return }
        outbox[index].failures += 1
        outbox[index].dueAt = retryAt
    }

    mutating func noteExpiries(now: Date, limit: Int) throws(StoreError) -> Int {
        try open()
        guard recordsEvents else { return 0 }
        var written = 0
        for record in records.values.sorted(by: { $0.expiresAt < $1.expiresAt }) where written < limit {
            guard record.state == .pending, record.expiresAt <= now else { continue }
            let event = LifecycleEvent(.expired, of: record, at: record.expiresAt, masking: masking)
            guard noted[record.id]?.contains(event.id) != true else { continue }
            note(event)
            written += 1
        }
        return written
    }
}
