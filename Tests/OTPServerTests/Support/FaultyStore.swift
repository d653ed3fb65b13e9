import Foundation
import OTPServer

/// A memory store whose chosen operations fail, for the `store_unavailable` paths.
final class FaultyStore: VerificationStore {
    enum Operation: String, CaseIterable, Sendable {
        case insert, record, idempotencyEntry, releaseIdempotencyKey, takeAttempt, approve, cancel,
            beginResend
        case finishResend, abandonResend, acquire, release, purge, ping
    }

    let base: any VerificationStore = MemoryStore()
    private let failing: TestLocked<Set<Operation>>
    /// When set, an insert is written and then throws, as when the store's reply is lost to a timeout.
    let losesInsertReplies = TestLocked(false)

    /// When set, a cancel waits until ``releaseCancels()``, as on a store that is blocked.
    let blocksCancels = TestLocked(false)
    private let blockedCancels = TestLocked<[CheckedContinuation<Void, Never>]>([])

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

    private func check(_ operation: Operation) throws(StoreError) {
        if failing.withLock({ $0.contains(operation) }) { throw StoreError("\(operation) failed (test)") }
    }

    func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) async throws(StoreError)
        -> InsertOutcome
    {
        try check(.insert)
        let outcome = try await base.insert(record, claim: claim, now: now)
        if losesInsertReplies.withLock({ $0 }) { throw StoreError("insert reply lost (test)") }
        return outcome
    }

    func record(id: String) async throws(StoreError) -> VerificationRecord? {
        try check(.record)
        return try await base.record(id: id)
    }

    func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry? {
        try check(.idempotencyEntry)
        return try await base.idempotencyEntry(key: key, now: now)
    }

    func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError) {
        try check(.releaseIdempotencyKey)
        try await base.releaseIdempotencyKey(key, verificationID: verificationID)
    }

    func takeAttempt(id: String, now: Date) async throws(StoreError) -> AttemptOutcome {
        try check(.takeAttempt)
        return try await base.takeAttempt(id: id, now: now)
    }

    func approve(id: String) async throws(StoreError) -> TransitionOutcome {
        try check(.approve)
        return try await base.approve(id: id)
    }

    func cancel(id: String) async throws(StoreError) -> TransitionOutcome {
        try check(.cancel)
        if blocksCancels.withLock({ $0 }) {
            await withCheckedContinuation { continuation in
                blockedCancels.withLock { $0.append(continuation) }
            }
        }
        return try await base.cancel(id: id)
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

    func ping() async -> Bool {
        failing.withLock { !$0.contains(.ping) }
    }

    func shutdown() async {
        await base.shutdown()
    }
}

/// A value behind a lock, for test doubles.
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
