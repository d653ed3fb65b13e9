import Foundation
import OTPCore

extension Verifier {
    /// Checks a code.
    ///
    /// Judged in the API's order: the verification exists (`notFound`), it is not approved
    /// or canceled (`notPending`), its code has not expired (`expired`, winning over locked),
    /// attempts are left (`locked`), the rate limits per client address and for failed
    /// checks per destination (`rateLimited`), the code's format after normalisation
    /// (`invalidCodeFormat`, no attempt taken), and only then one attempt is taken
    /// atomically and the code compared in constant time: approved, or `incorrectCode`
    /// with the attempts left (at 0 the verification reads `locked`).
    public func check(
        id: String, code: String, clientAddress: String
    ) async throws(VerifierError) -> Verification {
        let now = currentTime()
        let record = try await load(id)
        try judgeBeforeAttempt(record, now: now)

        let destinationKey = Destination.limitKey(channel: record.channel, address: record.destination)
        let addressKey = ClientAddress.limitKey(clientAddress)
        var failed = [
            RatePermit(key: try limitKey("fd", destinationKey), limit: policy.failedChecksPerDestination)
        ]
        if let perPair = policy.failedChecksPerDestinationAndAddress {
            failed.append(
                RatePermit(key: try limitKey("fa", destinationKey + "\u{0}" + addressKey), limit: perPair))
        }
        let perAddress = RatePermit(key: try limitKey("ca", addressKey), limit: policy.checksPerAddress)
        do {
            try await acquire([perAddress] + failed, now: now)
        } catch {
            throw error.with(attemptsLeft: record.attemptsLeft)
        }
        // The failed-check permit is taken up front so parallel checks cannot overshoot the
        // limit; every answer but `incorrect_code` gives it back.
        let answer: Result<Verification, VerifierError>
        do {
            answer = .success(try await judge(record, code: code, now: now))
        } catch {
            answer = .failure(error)
        }
        if case .failure(let error) = answer, error.kind == .incorrectCode {
            return try answer.get()
        }
        await release(failed, now: now)
        return try answer.get()
    }

    /// The format check, the attempt and the comparison.
    private func judge(
        _ record: VerificationRecord, code: String, now: Date
    ) async throws(VerifierError)
        -> Verification
    {
        let id = record.id
        let format = CodeFormat(length: record.codeLength, kind: .digits)
        let candidate = CodeNormalizer.normalizeUncut(code, for: format)
        guard candidate.count == format.length else {
            throw .invalidCodeFormat(format, attemptsLeft: record.attemptsLeft)
        }

        let outcome = try await storeCall { () async throws(StoreError) in
            try await store.takeAttempt(id: id, now: now)
        }
        let taken: VerificationRecord
        switch outcome {
        case .taken(let record): taken = record
        case .notFound: throw .notFound
        case .notPending: throw .notPending
        case .expired(let record): throw .expired(attemptsLeft: record.attemptsLeft)
        case .locked: throw .locked
        }

        guard hasher.matches(id: id, code: candidate, storedHash: taken.codeHash) else {
            throw .incorrectCode(attemptsLeft: taken.attemptsLeft)
        }
        let approved = try await storeCall { () async throws(StoreError) in try await store.approve(id: id) }
        switch approved {
        case .done(let record): return view(record, at: now)
        case .notFound: throw .notFound
        case .notPending, .leaseLost: throw .notPending
        }
    }

    /// The refusals that come before any rate limit: not pending, expired and locked.
    private func judgeBeforeAttempt(_ record: VerificationRecord, now: Date) throws(VerifierError) {
        switch record.status(at: now) {
        case .approved, .canceled: throw .notPending
        case .expired: throw .expired(attemptsLeft: record.attemptsLeft)
        case .locked: throw .locked
        case .pending: return
        }
    }
}
