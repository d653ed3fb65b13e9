import Foundation

/// What a change of state found: approve, cancel or finishing a resend.
public enum TransitionOutcome: Sendable, Equatable {
    /// The change was made; the record is as stored afterwards.
    case done(VerificationRecord)
    /// No such verification.
    case notFound
    /// The verification is approved or canceled; nothing changed.
    case notPending(VerificationRecord)
    /// The resend's lease was no longer held; nothing changed.
    case leaseLost(VerificationRecord)
}

/// What claiming a resend found.
public enum BeginResendOutcome: Sendable, Equatable {
    /// The lease is held; the record is as stored afterwards.
    case begun(VerificationRecord)
    /// No such verification.
    case notFound
    /// The verification is approved or canceled.
    case notPending(VerificationRecord)
    /// Every send is used.
    case maxSendsReached(VerificationRecord)
    /// The cooldown, or another resend in progress, runs until the given time.
    case tooSoon(VerificationRecord, until: Date)
}

/// A claim on an idempotency key for a start.
public struct IdempotencyClaim: Sendable, Equatable {
    /// The client's key.
    public var key: String
    /// What identifies the request's body.
    public var fingerprint: String
    /// When the key becomes free again.
    public var expiresAt: Date

    /// Creates a claim.
    public init(key: String, fingerprint: String, expiresAt: Date) {
        self.key = key
        self.fingerprint = fingerprint
        self.expiresAt = expiresAt
    }
}

/// A live idempotency key: which verification it started and with what body.
public struct IdempotencyEntry: Sendable, Equatable {
    /// The verification the key started.
    public var verificationID: String
    /// What identifies the request's body.
    public var fingerprint: String
    /// When the key becomes free again.
    public var expiresAt: Date

    /// Creates an entry.
    public init(verificationID: String, fingerprint: String, expiresAt: Date) {
        self.verificationID = verificationID
        self.fingerprint = fingerprint
        self.expiresAt = expiresAt
    }
}

/// A start as the store performs it in one atomic step: the idempotency key, the permits, the record.
public struct StartStep: Sendable, Equatable {
    /// The new pending verification, with its code's hash.
    public var record: VerificationRecord
    /// The start's idempotency key, when it has one.
    public var claim: IdempotencyClaim?
    /// Rate permits taken, all or none, before the record is stored.
    public var permits: [RatePermit]

    /// Creates a start.
    public init(record: VerificationRecord, claim: IdempotencyClaim?, permits: [RatePermit]) {
        self.record = record
        self.claim = claim
        self.permits = permits
    }
}

/// What a start's one store step found.
///
/// Closed on purpose, like the other store answers: each case is one outcome of the order a
/// ``StartStep`` is judged in, and every store must answer exactly these.
public enum StartAnswer: Sendable, Equatable {
    /// The permits were taken and the record stored, with its idempotency key and `pending` event.
    case inserted
    /// The idempotency key belongs to a live verification; nothing was taken or stored.
    case replay(IdempotencyEntry)
    /// A permit was refused (the longest wait and that permit's key); nothing was taken or stored.
    case denied(waitMilliseconds: Int64, key: String)
}
