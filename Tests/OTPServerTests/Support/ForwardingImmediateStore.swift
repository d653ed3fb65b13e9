import Foundation
import OTPServer

/// An immediate store that is not a `MemoryStore`, though every call goes to one.
///
/// It is reached through the public protocols only, so the verifier takes its general immediate
/// path with it (a `CheckAttempt`, a full `CheckOutcome`), where a `MemoryStore` takes its own
/// shorter one.
final class ForwardingImmediateStore: VerificationStore, ImmediateCheckStore {
    let base = MemoryStore()

    func recordImmediately(id: String) throws(StoreError) -> VerificationRecord? {
        try base.recordImmediately(id: id)
    }

    func checkImmediately(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome {
        try base.checkImmediately(attempt, now: now)
    }

    func check(_ attempt: CheckAttempt, now: Date) throws(StoreError) -> CheckOutcome {
        try base.checkImmediately(attempt, now: now)
    }

    func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date
    ) throws(StoreError)
        -> InsertOutcome
    {
        try base.insert(record, claim: claim, now: now)
    }

    func record(id: String) throws(StoreError) -> VerificationRecord? { try base.record(id: id) }

    func idempotencyEntry(key: String, now: Date) throws(StoreError) -> IdempotencyEntry? {
        try base.idempotencyEntry(key: key, now: now)
    }

    func releaseIdempotencyKey(_ key: String, verificationID: String) throws(StoreError) {
        try base.releaseIdempotencyKey(key, verificationID: verificationID)
    }

    func takeAttempt(id: String, now: Date) throws(StoreError) -> AttemptOutcome {
        try base.takeAttempt(id: id, now: now)
    }

    func approve(id: String) throws(StoreError) -> TransitionOutcome { try base.approve(id: id) }

    func cancel(id: String) throws(StoreError) -> TransitionOutcome { try base.cancel(id: id) }

    func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) throws(StoreError)
        -> BeginResendOutcome
    {
        try base.beginResend(id: id, lease: lease, maxSends: maxSends, now: now)
    }

    func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) throws(StoreError)
        -> TransitionOutcome
    {
        try base.finishResend(id: id, token: token, update: update, now: now)
    }

    func abandonResend(id: String, token: String) throws(StoreError) {
        try base.abandonResend(id: id, token: token)
    }

    func acquire(_ permits: [RatePermit], now: Date) throws(StoreError) -> RateDecision {
        try base.acquire(permits, now: now)
    }

    func release(_ permits: [RatePermit], now: Date) throws(StoreError) {
        try base.release(permits, now: now)
    }

    func purgeExpired(now: Date) throws(StoreError) -> Int { try base.purgeExpired(now: now) }

    func ping() -> Bool { base.ping() }

    func shutdown() { base.shutdown() }
}
