import Foundation

/// One check as the store judges it in a single atomic step: permits, the attempt, the comparison.
public struct CheckStep: Sendable, Equatable {
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

/// What a check's one store step found.
///
/// Closed on purpose, like the other store answers: each case is one result of
/// ``VerificationRecord/checkRefusal(at:)``, ``RatePermit`` admission and
/// ``VerificationRecord/check(candidateHash:now:)``. Only an approval carries the record, which
/// the answer to the client is made from; every other case carries what its answer says and no
/// more, so a wrong code, the commonest answer, is two words wide.
public enum CheckAnswer: Sendable, Equatable {
    /// No such verification.
    case notFound
    /// The verification is approved or canceled (with the attempts its code had left); nothing was
    /// taken.
    case notPending(attemptsLeft: Int)
    /// The current code's lifetime has passed; nothing was taken.
    case expired(attemptsLeft: Int)
    /// The current code has no attempts left; nothing was taken.
    case locked
    /// A permit was refused (the longest wait and that permit's key); nothing was taken.
    case rateLimited(waitMilliseconds: Int64, key: String, attemptsLeft: Int)
    /// One attempt was taken and the code was wrong.
    case incorrect(attemptsLeft: Int)
    /// One attempt was taken, the code was right and the verification is approved (the record as
    /// stored afterwards); the refunds were given.
    indirect case approved(VerificationRecord)
}

extension VerificationRecord {
    /// Why a check cannot be judged now (approved or canceled, expired, locked), or `nil` when it can.
    public func checkRefusal(at now: Date) -> CheckAnswer? {
        switch status(at: now) {
        case .approved, .canceled: .notPending(attemptsLeft: attemptsLeft)
        case .expired: .expired(attemptsLeft: attemptsLeft)
        case .locked: .locked
        case .pending: nil
        }
    }

    /// Takes one attempt and compares the candidate's hash with the kept one in constant time;
    /// approves the verification when they are equal.
    public mutating func check(candidateHash: [UInt8], now: Date) -> CheckAnswer {
        check(CandidateHash(candidateHash), now: now)
    }

    /// ``check(candidateHash:now:)`` with the candidate's hash as it is held.
    mutating func check(_ candidate: CandidateHash, now: Date) -> CheckAnswer {
        if let refusal = checkRefusal(at: now) { return refusal }
        return takeAttempt(comparing: candidate) ? .approved(self) : .incorrect(attemptsLeft: attemptsLeft)
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
