import Foundation
import OTPEngine

/// A memory store whose chosen operations fail, for the `store_unavailable` paths.
final class FaultyStore: VerificationStore {
    enum Operation: String, CaseIterable, Sendable {
        case start, check, record, idempotencyEntry, releaseIdempotencyKey, cancel, beginResend
        case finishResend, abandonResend, acquire, release, purge, ping, fraud, noteDelivery, deliveries
        case search
        /// The pumping guard's reads alone: tallies that add nothing (a gate, shadow's look at blocks).
        case fraudRead
    }

    let base = MemoryStore()
    private let failing: TestLocked<Set<Operation>>
    /// When set, a start's step is written and then fails, as when the store's reply is lost to a timeout.
    let losesInsertReplies = TestLocked(false)

    /// When set, a cancel waits until ``releaseCancels()``, as on a store that is blocked.
    let blocksCancels = TestLocked(false)
    private let blockedCancels = TestLocked<[CheckedContinuation<Void, Never>]>([])

    /// When set, a delivery attempt is written only at ``releaseNotes()``, as on a store whose
    /// writes queue behind others.
    let holdsNotes = TestLocked(false)
    private let heldNotes = TestLocked<[@Sendable () -> Void]>([])

    /// How many delivery attempts wait to be written.
    var waitingNotes: Int { heldNotes.withLock { $0.count } }

    /// Writes every held delivery attempt, in the order they came, and answers for each.
    func releaseNotes() {
        let waiting = heldNotes.withLock { notes in
            defer { notes = [] }
            return notes
        }
        for note in waiting { note() }
    }

    /// How many cancels wait now.
    var waitingCancels: Int { blockedCancels.withLock { $0.count } }

    /// Lets every waiting cancel go on.
    func releaseCancels() {
        let waiting = blockedCancels.withLock { cancels in
            defer { cancels = [] }
            return cancels
        }
        for cancel in waiting { cancel.resume() }
    }

    init(failing: Set<Operation> = []) {
        self.failing = TestLocked(failing)
    }

    func fail(_ operations: Set<Operation>) {
        failing.withLock { $0 = operations }
    }

    private func failure(_ operation: Operation) -> StoreError? {
        failing.withLock { $0.contains(operation) } ? StoreError("\(operation) failed (test)") : nil
    }

    fileprivate func check(_ operation: Operation) throws(StoreError) {
        if let error = failure(operation) { throw error }
    }

    func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        if let error = failure(.start) { return reply(.failure(error)) }
        let loses = losesInsertReplies.withLock { $0 }
        base.start(step, now: now) { answer in
            reply(loses ? .failure(StoreError("start reply lost (test)")) : answer)
        }
    }

    func check(_ step: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>) {
        if let error = failure(.check) { return reply(.failure(error)) }
        base.check(step, now: now, reply: reply)
    }

    func record(id: String, reply: @escaping StoreReply<VerificationRecord?>) {
        if let error = failure(.record) { return reply(.failure(error)) }
        base.record(id: id, reply: reply)
    }

    func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry? {
        try check(.idempotencyEntry)
        return try await base.idempotencyEntry(key: key, now: now)
    }

    func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError) {
        try check(.releaseIdempotencyKey)
        try await base.releaseIdempotencyKey(key, verificationID: verificationID)
    }

    func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try check(.cancel)
        if blocksCancels.withLock({ $0 }) {
            await withCheckedContinuation { continuation in
                blockedCancels.withLock { $0.append(continuation) }
            }
        }
        return try await base.cancel(id: id, now: now)
    }

    func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError)
        -> BeginResendOutcome
    {
        try check(.beginResend)
        return try await base.beginResend(id: id, lease: lease, maxSends: maxSends, now: now)
    }

    func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) async throws(StoreError) -> TransitionOutcome {
        try check(.finishResend)
        return try await base.finishResend(id: id, token: token, update: update, now: now)
    }

    func abandonResend(id: String, token: String) async throws(StoreError) {
        try check(.abandonResend)
        try await base.abandonResend(id: id, token: token)
    }

    func acquire(_ permits: [RatePermit], now: Date) async throws(StoreError) -> RateDecision {
        try check(.acquire)
        return try await base.acquire(permits, now: now)
    }

    func release(_ permits: [RatePermit], now: Date) async throws(StoreError) {
        try check(.release)
        try await base.release(permits, now: now)
    }

    func purgeExpired(now: Date) async throws(StoreError) -> Int {
        try check(.purge)
        return try await base.purgeExpired(now: now)
    }

    func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>) {
        if let error = failure(.noteDelivery) { return reply(.failure(error)) }
        let write: @Sendable () -> Void = { [base] in base.noteDelivery(attempt, reply: reply) }
        let held = holdsNotes.withLock { holds in holds }
        guard held else { return write() }
        heldNotes.withLock { $0.append(write) }
    }

    func deliveries(id: String) async throws(StoreError) -> [DeliveryAttempt] {
        try check(.deliveries)
        return try await base.deliveries(id: id)
    }

    func verifications(
        matching query: VerificationQuery, now: Date
    ) async throws(StoreError)
        -> [VerificationRecord]
    {
        try check(.search)
        return try await base.verifications(matching: query, now: now)
    }

    func ping() async -> Bool {
        failing.withLock { !$0.contains(.ping) }
    }

    func shutdown() async {
        await base.shutdown()
    }

    // Events and factors are the memory store's, never failing.

    func claimEvents(now: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [OutboxEvent] {
        try await base.claimEvents(now: now, leaseUntil: leaseUntil, limit: limit)
    }

    func eventDelivered(id: String) async throws(StoreError) {
        try await base.eventDelivered(id: id)
    }

    func eventFailed(id: String, retryAt: Date, leasedUntil: Date) async throws(StoreError) {
        try await base.eventFailed(id: id, retryAt: retryAt, leasedUntil: leasedUntil)
    }

    func noteExpiries(now: Date, limit: Int) async throws(StoreError) -> Int {
        try await base.noteExpiries(now: now, limit: limit)
    }

    func undeliveredEventCount() async throws(StoreError) -> Int {
        try await base.undeliveredEventCount()
    }

    func insertFactor(_ factor: TOTPFactor) async throws(StoreError) {
        try await base.insertFactor(factor)
    }

    func factor(id: String) async throws(StoreError) -> TOTPFactor? {
        try await base.factor(id: id)
    }

    func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement {
        try await base.judgeFactor(id: id, matchedStep: matchedStep, maxFailures: maxFailures, now: now)
    }

    func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPRecovery {
        try await base.recoverFactor(id: id, hash: hash, maxFailures: maxFailures, now: now)
    }

    func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor? {
        try await base.replaceRecoveryCodes(id: id, hashes: hashes)
    }

    func deleteFactor(id: String) async throws(StoreError) -> Bool {
        try await base.deleteFactor(id: id)
    }
}

/// A value behind a lock, for test doubles.
extension FaultyStore: FraudCounterStore {
    func tallyFraud(_ tally: FraudTally, now: Date) async throws(StoreError) -> FraudTotals {
        try check(.fraud)
        if tally.sends == 0, tally.approvals == 0 { try check(.fraudRead) }
        return try await base.tallyFraud(tally, now: now)
    }

    func blockFraud(_ request: FraudBlockRequest, now: Date) async throws(StoreError) -> FraudBlockState {
        try check(.fraud)
        return try await base.blockFraud(request, now: now)
    }

    func fraudCounts(since: Date) async throws(StoreError) -> [FraudCount] {
        try check(.fraud)
        return try await base.fraudCounts(since: since)
    }
}

final class TestLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
