import Foundation
import OTPEngine

/// Shorthands for the tests: a record put in by a start's one step, and a check that takes no permits.
extension VerificationStore {
    /// Stores `record` with the start's step, claiming `claim` and taking `permits`.
    func insert(
        _ record: VerificationRecord, claim: IdempotencyClaim?, taking permits: [RatePermit] = [], now: Date
    ) async throws(StoreError) -> StartAnswer {
        try await start(StartStep(record: record, claim: claim, permits: permits), now: now)
    }

    /// Checks verification `id` against `candidateHash` without permits.
    func check(id: String, candidateHash: [UInt8], now: Date) async throws(StoreError) -> CheckAnswer {
        try await check(
            CheckStep(id: id, candidateHash: candidateHash, permits: [], refundsOnApproval: []), now: now)
    }
}
