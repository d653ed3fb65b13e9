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
        if let attempt = knownAttempt(id: id, code: code, clientAddress: clientAddress) {
            let outcome = try await storeCall { () async throws(StoreError) in
                try await store.check(attempt, now: now)
            }
            return try judged(outcome, at: now)
        }
        let record = try await load(id)
        switch try plan(record, code: code, clientAddress: clientAddress, now: now) {
        case .malformed(let format, let permits, let failed):
            // A malformed code is judged after the rate limits and takes no attempt: the permits
            // are taken (every check counts per address) and the failed-check budget given back.
            do {
                try await acquire(permits, now: now)
            } catch {
                throw error.with(attemptsLeft: record.attemptsLeft)
            }
            await release(failed, now: now)
            throw .invalidCodeFormat(format, attemptsLeft: record.attemptsLeft)
        case .attempt(let attempt):
            let outcome = try await storeCall { () async throws(StoreError) in
                try await store.check(attempt, now: now)
            }
            return try judged(outcome, at: now)
        }
    }

    /// ``check(id:code:clientAddress:)`` on the caller's thread, when the store is an
    /// ``ImmediateCheckStore``; `nil` when the check needs the asynchronous path (another
    /// store, or a code of the wrong format, whose permits are taken and given back in two steps).
    ///
    /// The answer, and every change to the store, is the one the asynchronous check makes.
    /// The caller's thread may block for the store's step: call it from a thread that may.
    public func checkImmediately(
        id: String, code: String, clientAddress: String
    ) -> Result<Verification, VerifierError>? {
        // A memory store (always an immediate one) is looked for first: its path then copies no
        // existential.
        guard memoryStore != nil || immediateStore != nil else { return nil }
        let now = currentTime()
        do throws(VerifierError) {
            if let memoryStore {
                if let verdict = try knownVerdict(
                    id: id, code: code, clientAddress: clientAddress, by: memoryStore, at: now)
                {
                    // A wrong code, the common answer, is returned as it is, not thrown and caught.
                    if case .incorrect(let attemptsLeft) = verdict {
                        return .failure(.incorrectCode(attemptsLeft: attemptsLeft))
                    }
                    return .success(try judged(verdict, at: now))
                }
            } else if let store = immediateStore,
                let attempt = knownAttempt(id: id, code: code, clientAddress: clientAddress)
            {
                return .success(try judgedNow(attempt, by: store, at: now))
            }
            guard let store = immediateStore else { return nil }
            guard VerificationID.isWellFormed(id) else { throw .notFound }
            let found = try storeCallNow { () throws(StoreError) in try store.recordImmediately(id: id) }
            guard let record = found else { throw .notFound }
            guard
                case .attempt(let attempt) = try plan(
                    record, code: code, clientAddress: clientAddress, now: now)
            else { return nil }
            return .success(try judgedNow(attempt, by: store, at: now))
        } catch {
            return .failure(error)
        }
    }

    /// The memory store's verdict on a check whose verification was checked from the same client
    /// address before and whose code fits its format, or `nil` for any other check.
    ///
    /// ``knownAttempt(id:code:clientAddress:)`` with nothing in between: the memory store judges
    /// the remembered permits and the candidate's hash as they are, with no ``CheckAttempt`` made.
    private func knownVerdict(
        id: String, code: String, clientAddress: String, by store: MemoryStore, at now: Date
    ) throws(VerifierError) -> CheckVerdict? {
        guard let permits = checkPermits[CheckPair(id: id, clientAddress: clientAddress)],
            let candidate = candidate(code, for: permits)
        else { return nil }
        return try storeCallNow { () throws(StoreError) in
            try store.verdictImmediately(
                id: permits.id, candidate: .digest(candidate), permits: permits.permits,
                refunds: permits.failed,
                now: now)
        }
    }

    /// The store's one step for `attempt` on the caller's thread, and the answer it makes.
    private func judgedNow(
        _ attempt: CheckAttempt, by store: any ImmediateCheckStore, at now: Date
    ) throws(VerifierError) -> Verification {
        let outcome = try storeCallNow { () throws(StoreError) in
            try store.checkImmediately(attempt, now: now)
        }
        return try judged(outcome, at: now)
    }

    /// The verification an approving verdict leaves, or the error any other verdict is.
    private func judged(_ verdict: CheckVerdict, at now: Date) throws(VerifierError) -> Verification {
        switch verdict {
        case .incorrect(let attemptsLeft): throw .incorrectCode(attemptsLeft: attemptsLeft)
        case .outcome(let outcome): return try judged(outcome, at: now)
        }
    }

    /// ``check(id:code:clientAddress:)`` handed to a ``QueuedCheckStore``, whose thread calls
    /// `completion` with the answer; `false`, with `completion` never called, when the check needs
    /// the asynchronous path (another store, a verification not seen before, or a malformed code).
    ///
    /// The answer, and every change to the store, is the one the asynchronous check makes.
    public func checkQueued(
        id: String, code: String, clientAddress: String,
        completion: @escaping @Sendable (Result<Verification, VerifierError>) -> Void
    ) -> Bool {
        guard let store = queuedStore else { return false }
        let now = currentTime()
        guard let attempt = knownAttempt(id: id, code: code, clientAddress: clientAddress) else {
            return false
        }
        store.check(attempt, now: now) { [self] (outcome: Result<CheckOutcome, StoreError>) in
            switch outcome {
            case .success(let judgedOutcome):
                do throws(VerifierError) {
                    completion(.success(try judged(judgedOutcome, at: now)))
                } catch {
                    completion(.failure(error))
                }
            case .failure(let error):
                completion(.failure(.storeUnavailable(error)))
            }
        }
        return true
    }

    /// What a check of a loaded record does next.
    private enum CheckPlan {
        /// The code does not fit the format: take `permits`, give `failed` back, answer the format.
        case malformed(CodeFormat, permits: [RatePermit], failed: [RatePermit])
        /// One atomic step of the store: the permits (the failed-check one taken up front so
        /// parallel checks cannot overshoot it, and given back unless the code is wrong), the
        /// attempt, the constant-time comparison and the approval.
        case attempt(CheckAttempt)
    }

    /// Judges what can be judged before the store's step: the refusals, the permits, the format.
    private func plan(
        _ record: VerificationRecord, code: String, clientAddress: String, now: Date
    ) throws(VerifierError) -> CheckPlan {
        if let refusal = record.checkRefusal(at: now) { throw Self.error(for: refusal) }
        return try plan(checkPermits(record, clientAddress: clientAddress), code: code)
    }

    /// The permits of checks of a verification from a client address, made once per pair and
    /// remembered.
    private func checkPermits(
        _ record: VerificationRecord, clientAddress: String
    ) throws(VerifierError) -> CheckPermits {
        let address = try checkAddress(clientAddress)
        let destinationKey = Destination.limitKey(channel: record.channel, address: record.destination)
        let failed = RatePermit(
            key: try limitKey("fd", destinationKey), limit: policy.failedChecksPerDestination)
        let permits: CheckPermits
        if let perPair = policy.failedChecksPerDestinationAndAddress {
            let pair = RatePermit(
                key: try limitKey("fa", destinationKey + "\u{0}" + address.limitKey), limit: perPair)
            permits = CheckPermits(record, permits: [address.checks, failed, pair], failed: [failed, pair])
        } else {
            permits = CheckPermits(record, permits: [address.checks, failed], failed: [failed])
        }
        checkPermits.remember(permits, for: CheckPair(id: record.id, clientAddress: clientAddress))
        return permits
    }

    /// The permits and the format of a check.
    private func plan(_ permits: CheckPermits, code: String) -> CheckPlan {
        guard let candidate = candidate(code, for: permits) else {
            return .malformed(permits.format, permits: permits.permits, failed: permits.failed)
        }
        return .attempt(
            CheckAttempt(
                idKey: permits.id, candidate: .digest(candidate), permits: permits.permits,
                refundsOnApproval: permits.failed))
    }

    /// The hash of a submitted code for a verification, or `nil` when the code does not fit the
    /// verification's format.
    private func candidate(_ code: String, for permits: CheckPermits) -> HMACDigest? {
        guard let whole = CodeNormalizer.wholeCode(code, for: permits.format) else { return nil }
        return hasher.digest(id: permits.id.key, code: whole, binding: permits.binding)
    }

    /// The store's one atomic step for a check whose verification was checked from the same client
    /// address before and whose code fits its format, or `nil` for any other check.
    ///
    /// The store's step judges the refusals first, as ``plan(_:code:clientAddress:now:)`` would:
    /// one store call instead of two. A check never seen, or with a malformed code, takes the path
    /// that loads the record, so every answer and its order stay those of a first check.
    private func knownAttempt(id: String, code: String, clientAddress: String) -> CheckAttempt? {
        guard let permits = checkPermits[CheckPair(id: id, clientAddress: clientAddress)] else { return nil }
        guard case .attempt(let attempt) = plan(permits, code: code) else { return nil }
        return attempt
    }

    /// A client address's limit key and the key of its checks-per-address counter, made once per
    /// address: an attack's checks come from a few addresses, and each would otherwise parse the
    /// address and compute an HMAC again.
    private func checkAddress(_ clientAddress: String) throws(VerifierError) -> CheckAddress {
        if let known = checkAddresses[clientAddress] { return known }
        let limitKey = ClientAddress.limitKey(clientAddress)
        let address = CheckAddress(
            limitKey: limitKey,
            checks: RatePermit(key: try self.limitKey("ca", limitKey), limit: policy.checksPerAddress))
        checkAddresses.remember(address, for: clientAddress)
        return address
    }

    /// The verification an approving outcome leaves, or the error any other outcome is.
    private func judged(_ outcome: CheckOutcome, at now: Date) throws(VerifierError) -> Verification {
        guard case .approved(let approved) = outcome else { throw Self.error(for: outcome) }
        return view(approved, at: now)
    }

    /// The engine's answer to every check outcome but an approval.
    private static func error(for outcome: CheckOutcome) -> VerifierError {
        switch outcome {
        case .incorrect(let taken): .incorrectCode(attemptsLeft: taken.attemptsLeft)
        case .rateLimited(let wait, let key, let current):
            .rateLimited(
                retryAfter: .milliseconds(wait), attemptsLeft: current.attemptsLeft, limit: limit(ofKey: key))
        case .notFound: .notFound
        case .notPending, .approved: .notPending
        case .expired(let current): .expired(attemptsLeft: current.attemptsLeft)
        case .locked: .locked
        }
    }
}

/// What checks need of a client address: its limit key, and the permit of its checks-per-address
/// counter.
final class CheckAddress: Sendable {
    let limitKey: String
    let checks: RatePermit

    init(limitKey: String, checks: RatePermit) {
        self.limitKey = limitKey
        self.checks = checks
    }
}

/// A verification's id and a client address as given: what a check's permits depend on.
struct CheckPair: Hashable, Sendable {
    let id: String
    let clientAddress: String
}

/// The permits of checks of one verification from one client address, with what never changes
/// about the verification (its id and its codes' format), made once: a check takes them from the memo
/// with one lookup and one retain, and makes no permit or array of its own.
final class CheckPermits: Sendable {
    let id: HashedKey
    /// The format of the verification's codes.
    let format: CodeFormat
    /// Every permit a check takes.
    let permits: [RatePermit]
    /// The failed-check permits among them, given back unless the code is wrong.
    let failed: [RatePermit]
    /// What the codes' hashes cover besides id and code: the transaction, if any.
    let binding: String?

    init(_ record: VerificationRecord, permits: [RatePermit], failed: [RatePermit]) {
        id = HashedKey(record.id)
        binding = CodeHasher.binding(for: record.transaction)
        format = CodeFormat(length: record.codeLength, kind: .digits)
        self.permits = permits
        self.failed = failed
    }
}
