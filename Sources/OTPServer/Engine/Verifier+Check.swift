import Foundation
import OTPCore

extension Verifier {
    /// Checks a code.
    ///
    /// Judged in the API's order: the verification exists (404), it is not approved or
    /// canceled (409), its code has not expired (410, winning over locked), attempts are
    /// left (423), the rate limits per client address and for failed checks per
    /// destination (429), the code's format after normalisation (400, no attempt taken),
    /// and only then one attempt is taken atomically and the code compared in constant
    /// time: approved, or 422 `incorrect_code` with the attempts left (at 0 the
    /// verification reads `locked`).
    public func check(id: String, code: String, clientAddress: String) async throws(APIError) -> Verification
    {
        let now = currentTime()
        let record = try await load(id)
        try judgeBeforeAttempt(record, now: now)

        let failed = RatePermit(
            key: try limitKey(
                "fd", Destination.limitKey(channel: record.channel, address: record.destination)),
            limit: policy.failedChecksPerDestination)
        let perAddress = RatePermit(
            key: try limitKey("ca", ClientAddress.limitKey(clientAddress)), limit: policy.checksPerAddress)
        do {
            try await acquire([perAddress, failed], now: now)
        } catch {
            var error = error
            error.attemptsLeft = max(0, record.attemptsLeft)
            throw error
        }
        // The failed-check permit is taken up front so parallel checks cannot overshoot the
        // limit; every answer but `incorrect_code` gives it back.
        let answer: Result<Verification, APIError>
        do {
            answer = .success(try await judge(record, code: code, now: now))
        } catch {
            answer = .failure(error)
        }
        if case .failure(let error) = answer, error.code == .incorrectCode {
            return try answer.get()
        }
        await release([failed], now: now)
        return try answer.get()
    }

    /// The format check, the attempt and the comparison.
    private func judge(
        _ record: VerificationRecord, code: String, now: Date
    ) async throws(APIError)
        -> Verification
    {
        let id = record.id
        let format = CodeFormat(length: record.codeLength, kind: .digits)
        let candidate = CodeNormalizer.normalizeUncut(code, for: format)
        guard candidate.count == format.length else {
            throw .invalidCodeFormat(format, attemptsLeft: max(0, record.attemptsLeft))
        }

        let outcome = try await storeCall { () async throws(StoreError) in
            try await store.takeAttempt(id: id, now: now)
        }
        let taken: VerificationRecord
        switch outcome {
        case .taken(let record): taken = record
        case .notFound: throw .notFound
        case .notPending: throw .notPending
        case .expired(let record): throw .expired(attemptsLeft: max(0, record.attemptsLeft))
        case .locked: throw .locked
        }

        guard hasher.matches(id: id, code: candidate, storedHash: taken.codeHash) else {
            throw .incorrect(attemptsLeft: max(0, taken.attemptsLeft))
        }
        let approved = try await storeCall { () async throws(StoreError) in try await store.approve(id: id) }
        switch approved {
        case .done(let record): return view(record, at: now)
        case .notFound: throw .notFound
        case .notPending, .leaseLost: throw .notPending
        }
    }

    /// The answers that come before any rate limit: 409, 410 and 423.
    private func judgeBeforeAttempt(_ record: VerificationRecord, now: Date) throws(APIError) {
        switch record.status(at: now) {
        case .approved, .canceled: throw .notPending
        case .expired: throw .expired(attemptsLeft: max(0, record.attemptsLeft))
        case .locked: throw .locked
        case .pending: return
        }
    }
}
