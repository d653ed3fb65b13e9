import Foundation

/// One check as the store judges it in a single atomic step: permits, the attempt, the comparison.
public struct CheckAttempt: Sendable, Equatable {
    /// The verification checked.
    public var id: String {
        get { idKey.key }
        set { idKey = HashedKey(newValue) }
    }

    /// The id with its hash, worked out once per verification and client address by the verifier:
    /// the memory store finds the record by it.
    private(set) var idKey: HashedKey
    /// The candidate code's hash, made as the verifier made the kept one; the store compares the two
    /// in constant time.
    public var candidateHash: [UInt8] {
        get { candidate.bytes }
        set { candidate = CandidateHash(newValue) }
    }

    /// The candidate's hash as it is held: inline when it is 32 bytes.
    private(set) var candidate: CandidateHash
    /// Rate permits taken, all or none, before the attempt.
    public var permits: [RatePermit]
    /// Permits among them given back unless the code is wrong (the failed-check budget).
    public var refundsOnApproval: [RatePermit]

    /// Creates a check.
    public init(id: String, candidateHash: [UInt8], permits: [RatePermit], refundsOnApproval: [RatePermit]) {
        self.init(
            idKey: HashedKey(id), candidate: CandidateHash(candidateHash), permits: permits,
            refundsOnApproval: refundsOnApproval)
    }

    /// Creates a check of a verification whose id is already hashed.
    init(idKey: HashedKey, candidate: CandidateHash, permits: [RatePermit], refundsOnApproval: [RatePermit]) {
        self.idKey = idKey
        self.candidate = candidate
        self.permits = permits
        self.refundsOnApproval = refundsOnApproval
    }
}

/// What a check found, judged atomically inside the store.
///
/// Closed on purpose, like the other store outcomes: each case is one result of
/// ``VerificationRecord/checkRefusal(at:)``, ``RatePermit`` admission and
/// ``VerificationRecord/check(candidateHash:now:)``.
public enum CheckOutcome: Sendable, Equatable {
    /// No such verification.
    case notFound
    /// The verification is approved or canceled; nothing was taken.
    case notPending(VerificationRecord)
    /// The current code's lifetime has passed; nothing was taken.
    case expired(VerificationRecord)
    /// The current code has no attempts left; nothing was taken.
    case locked(VerificationRecord)
    /// A permit was refused (the longest wait and that permit's key); nothing was taken.
    case rateLimited(waitMilliseconds: Int64, key: String, VerificationRecord)
    /// One attempt was taken and the code was wrong; the record as stored afterwards.
    case incorrect(VerificationRecord)
    /// One attempt was taken, the code was right and the verification is approved; refunds were given.
    case approved(VerificationRecord)
}

extension VerificationRecord {
    /// Why a check cannot be judged now (approved or canceled, expired, locked), or `nil` when it can.
    public func checkRefusal(at now: Date) -> CheckOutcome? {
        switch status(at: now) {
        case .approved, .canceled: .notPending(self)
        case .expired: .expired(self)
        case .locked: .locked(self)
        case .pending: nil
        }
    }

    /// Takes one attempt and compares the candidate's hash with the kept one in constant time;
    /// approves the verification when they are equal.
    public mutating func check(candidateHash: [UInt8], now: Date) -> CheckOutcome {
        if let refusal = checkRefusal(at: now) { return refusal }
        return takeAttempt(comparing: CandidateHash(candidateHash)) ? .approved(self) : .incorrect(self)
    }

    /// Takes one attempt of a verification found pending, and approves it when the code is right.
    ///
    /// ``checkRefusal(at:)`` must have found the verification pending. The candidate's hash is
    /// compared with the kept one in constant time; `true` when they are equal and the verification
    /// is approved. No copy of the record is made.
    mutating func takeAttempt(comparing candidate: CandidateHash) -> Bool {
        attemptsLeft -= 1
        guard candidate.matches(codeHash) else { return false }
        _ = approve()
        return true
    }
}

/// A check's outcome as the verifier answers it: a wrong code carries only the attempts left,
/// where a ``CheckOutcome`` carries a copy of the record.
///
/// Any other outcome is boxed: the verdict stays two words wide (the attempts left and the case),
/// and the rarer answers pay one allocation for their box.
enum CheckVerdict {
    /// One attempt was taken and the code was wrong.
    case incorrect(attemptsLeft: Int)
    /// Any other outcome.
    indirect case outcome(CheckOutcome)
}

extension VerificationStore {
    /// Judges a check with the store's separate steps (read, permits, attempt, approval, refund),
    /// each atomic on its own.
    ///
    /// A store that can do all of it in one atomic step (the memory, SQLite and Redis stores do)
    /// implements this itself: a check then costs one store call instead of four.
    public func check(_ attempt: CheckAttempt, now: Date) async throws(StoreError) -> CheckOutcome {
        guard let record = try await record(id: attempt.id) else { return .notFound }
        if let refusal = record.checkRefusal(at: now) { return refusal }
        if case .denied(let wait, let key) = try await acquire(attempt.permits, now: now) {
            return .rateLimited(waitMilliseconds: wait, key: key, record)
        }
        let outcome: CheckOutcome
        switch try await takeAttempt(id: attempt.id, now: now) {
        case .notFound: outcome = .notFound
        case .notPending(let record): outcome = .notPending(record)
        case .expired(let record): outcome = .expired(record)
        case .locked(let record): outcome = .locked(record)
        case .taken(let taken):
            guard HMACSHA256.constantTimeEqual(taken.codeHash, attempt.candidateHash) else {
                return .incorrect(taken)
            }
            switch try await approve(id: attempt.id) {
            case .done(let approved): outcome = .approved(approved)
            case .notFound: outcome = .notFound
            case .notPending(let record), .leaseLost(let record): outcome = .notPending(record)
            }
        }
        // Every outcome but a wrong code gives the failed-check budget back.
        try? await release(attempt.refundsOnApproval, now: now)
        return outcome
    }
}
