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
        let result = await withCheckedContinuation { continuation in
            check(id: id, code: code, clientAddress: clientAddress) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// ``check(id:code:clientAddress:)``, answered through `reply`: once, on the thread the store
    /// answers on.
    ///
    /// A check is one store step when the verification was checked from the same client address
    /// before: the permits are remembered, and the store judges the refusals, the permits and the
    /// code at once. A check never seen reads the record first, so that every answer and its
    /// order stay those of the API. With the memory store, `reply` runs before this returns; with
    /// a store that has a queue or a connection of its own, on the store's thread. Only a code of
    /// the wrong format, whose permits are taken and the failed-check ones given back in two
    /// steps, runs as a task. `reply` must not block.
    public func check(
        id: String, code: String, clientAddress: String,
        reply: @escaping @Sendable (Result<Verification, VerifierError>) -> Void
    ) {
        let now = currentTime()
        if let step = knownStep(id: id, code: code, clientAddress: clientAddress) {
            store.check(step, now: now) { [self] answer in answered(answer, at: now, reply: reply) }
            return
        }
        guard VerificationID.isWellFormed(id) else { return reply(.failure(.notFound)) }
        store.record(id: id) { [self] found in
            let record: VerificationRecord
            switch found {
            case .failure(let error): return reply(.failure(.storeUnavailable(error)))
            case .success(nil): return reply(.failure(.notFound))
            case .success(let stored?): record = stored
            }
            let plan: CheckPlan
            do throws(VerifierError) {
                plan = try self.plan(record, code: code, clientAddress: clientAddress, now: now)
            } catch {
                return reply(.failure(error))
            }
            switch plan {
            case .attempt(let step):
                store.check(step, now: now) { [self] answer in answered(answer, at: now, reply: reply) }
            case .malformed(let format, let permits, let failed):
                let attemptsLeft = record.attemptsLeft
                Task {
                    reply(
                        await malformed(
                            format, permits: permits, failed: failed, attemptsLeft: attemptsLeft, now: now))
                }
            }
        }
    }

    /// The answer to a code that does not fit its format, judged after the rate limits and taking
    /// no attempt: the permits are taken (every check counts per address) and the failed-check
    /// budget given back.
    private func malformed(
        _ format: CodeFormat, permits: [RatePermit], failed: [RatePermit], attemptsLeft: Int, now: Date
    ) async -> Result<Verification, VerifierError> {
        do throws(VerifierError) {
            try await acquire(permits, now: now)
        } catch {
            return .failure(error.with(attemptsLeft: attemptsLeft))
        }
        await release(failed, now: now)
        return .failure(.invalidCodeFormat(format, attemptsLeft: attemptsLeft))
    }

    /// What a check of a loaded record does next.
    private enum CheckPlan {
        /// The code does not fit the format: take `permits`, give `failed` back, answer the format.
        case malformed(CodeFormat, permits: [RatePermit], failed: [RatePermit])
        /// One atomic step of the store: the permits (the failed-check one taken up front so
        /// parallel checks cannot overshoot it, and given back unless the code is wrong), the
        /// attempt, the constant-time comparison and the approval.
        case attempt(CheckStep)
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
            CheckStep(
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
    private func knownStep(id: String, code: String, clientAddress: String) -> CheckStep? {
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

    /// Answers a check: an approval of an SMS verification the pumping guard looks at is counted
    /// first, from a task.
    private func answered(
        _ answer: Result<CheckAnswer, StoreError>, at now: Date,
        reply: @escaping @Sendable (Result<Verification, VerifierError>) -> Void
    ) {
        guard case .success(.approved(let record)) = answer,
            let subject = fraudSubject(channel: record.channel, address: record.destination)
        else { return reply(judged(answer, at: now)) }
        let result = judged(answer, at: now)
        Task { [self] in
            await fraudCountApproval(
                subject, address: record.destination, startedAt: record.createdAt, now: now)
            reply(result)
        }
    }

    /// The verification an approving answer leaves, or the error any other answer is.
    private func judged(
        _ answer: Result<CheckAnswer, StoreError>, at now: Date
    ) -> Result<Verification, VerifierError> {
        switch answer {
        case .success(.approved(let approved)): .success(view(approved, at: now))
        case .success(let refusal): .failure(Self.error(for: refusal))
        case .failure(let error): .failure(.storeUnavailable(error))
        }
    }

    /// The engine's answer to every check answer but an approval.
    private static func error(for answer: CheckAnswer) -> VerifierError {
        switch answer {
        case .incorrect(let attemptsLeft): .incorrectCode(attemptsLeft: attemptsLeft)
        case .rateLimited(let wait, let key, let attemptsLeft):
            .rateLimited(
                retryAfter: .milliseconds(wait), attemptsLeft: attemptsLeft, limit: limit(ofKey: key))
        case .notFound: .notFound
        case .notPending(let attemptsLeft): .notPending(attemptsLeft: attemptsLeft)
        case .approved: .notPending
        case .expired(let attemptsLeft): .expired(attemptsLeft: attemptsLeft)
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
