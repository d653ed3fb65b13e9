import Foundation

/// An authenticator-app factor (TOTP, RFC 6238) as a store keeps it.
///
/// The shared secret is kept only sealed (``SecretBox`` under a key derived from the server's
/// secret, the factor's id authenticated), recovery codes only as HMACs. Every rule that changes
/// a factor is a method here, run by each store in one atomic step.
public struct TOTPFactor: Sendable, Equatable {
    /// Whether a first right code has been checked.
    public enum Status: String, Sendable, CaseIterable {
        /// Enrolled; waits for a first right code.
        case unconfirmed
        /// Confirmed; codes sign in.
        case active
    }

    /// `tf_` and 22 URL-safe characters.
    public var id: String
    /// The account name the authenticator app shows, such as `alice@example.org`.
    public var account: String
    /// The issuer the authenticator app shows, such as `Example`.
    public var issuer: String
    /// The sealed shared secret.
    public var sealedSecret: [UInt8]
    /// Unconfirmed until a first right code.
    public var status: Status
    /// The time step of the last accepted code: no code of that step or an earlier one is accepted again.
    public var lastUsedStep: Int64?
    /// Failed checks and recoveries since the last success or lock; at the limit the factor locks.
    public var failures: Int
    /// HMACs of the recovery codes not used yet.
    public var recoveryHashes: [[UInt8]]
    /// When it was enrolled.
    public var createdAt: Date
    /// When the current lock lifts, or `nil` when the factor is not locked.
    public var lockedUntil: Date?
    /// How many times the factor locked since its last success: each lock lasts twice the one before.
    public var locks: Int
    /// HMACs of the recovery codes already used, so a replay of one is told apart from a guess.
    public var usedRecoveryHashes: [[UInt8]]

    /// How long the first lock lasts: 15 minutes; each further lock before a success doubles it.
    public static let firstLock: Duration = .seconds(900)
    /// The most doublings: a lock lasts at most 15 minutes × 2¹⁰, about ten and a half days.
    public static let maxLockDoublings = 10

    /// Creates a factor.
    public init(
        id: String, account: String, issuer: String, sealedSecret: [UInt8], status: Status = .unconfirmed,
        lastUsedStep: Int64? = nil, failures: Int = 0, recoveryHashes: [[UInt8]] = [], createdAt: Date,
        lockedUntil: Date? = nil, locks: Int = 0, usedRecoveryHashes: [[UInt8]] = []
    ) {
        self.id = id
        self.account = account
        self.issuer = issuer
        self.sealedSecret = sealedSecret
        self.status = status
        self.lastUsedStep = lastUsedStep
        self.failures = failures
        self.recoveryHashes = recoveryHashes
        self.createdAt = createdAt
        self.lockedUntil = lockedUntil
        self.locks = locks
        self.usedRecoveryHashes = usedRecoveryHashes
    }

    /// Recovery-code HMACs as stores keep them, one after another in one byte string.
    public static func concatenated(_ hashes: [[UInt8]]) -> [UInt8] {
        hashes.flatMap { $0 }
    }

    /// The HMACs of ``concatenated(_:)`` again, or `nil` when the bytes are not whole HMACs.
    public static func recoveryHashes(concatenated bytes: [UInt8]) -> [[UInt8]]? {
        guard bytes.count % HMACSHA256.byteCount == 0 else { return nil }
        return stride(from: 0, to: bytes.count, by: HMACSHA256.byteCount).map {
            Array(bytes[$0..<$0 + HMACSHA256.byteCount])
        }
    }

    /// Whether a lock holds at `now`; it lifts by itself at ``lockedUntil``.
    public func isLocked(at now: Date) -> Bool {
        lockedUntil.map { now < $0 } ?? false
    }

    /// How long the `number`-th lock in a row lasts: ``firstLock`` doubled for each one before it.
    public static func lockDuration(forLock number: Int) -> Duration {
        firstLock * (1 << min(max(0, number - 1), maxLockDoublings))
    }

    /// Judges a checked code, given the time step it matched (`nil`: it matched none).
    ///
    /// A locked factor judges nothing. A code of a step already used (or earlier) is a replay and
    /// changes nothing. A right code records its step, clears the failures and the back-off, and
    /// confirms the factor; a wrong one counts a failure, and the `maxFailures`-th locks the factor.
    public mutating func judge(matchedStep: Int64?, maxFailures: Int, now: Date) -> TOTPJudgement {
        if isLocked(at: now) { return .locked(self) }
        guard let step = matchedStep else {
            fail(maxFailures: maxFailures, now: now)
            return .incorrect(self)
        }
        if let last = lastUsedStep, step <= last { return .alreadyUsed(self) }
        let confirming = status == .unconfirmed
        lastUsedStep = step
        status = .active
        succeed()
        return .accepted(self, confirmed: confirming)
    }

    /// Uses a recovery code, given its HMAC; also while the factor is locked, since recovery codes
    /// are the way back in.
    ///
    /// A factor not yet confirmed takes none. A known one is used up and clears the failures, the
    /// lock and the back-off; one already used is a replay and counts nothing; any other counts a
    /// failure, unless the factor is locked: then it counts nothing (`lockedUnknown`), so wrong
    /// recovery codes cannot lengthen a lock that wrong authenticator codes set.
    public mutating func recover(hash: [UInt8], maxFailures: Int, now: Date) -> TOTPRecovery {
        guard status == .active else { return .notActive(self) }
        if let found = Self.index(of: hash, in: recoveryHashes) {
            usedRecoveryHashes.append(recoveryHashes.remove(at: found))
            succeed()
            return .used(self)
        }
        if Self.index(of: hash, in: usedRecoveryHashes) != nil { return .alreadyUsed(self) }
        if isLocked(at: now) { return .lockedUnknown(self) }
        fail(maxFailures: maxFailures, now: now)
        return .unknown(self)
    }

    /// Counts a failure; the `maxFailures`-th locks the factor for the next back-off and starts the
    /// count again.
    mutating func fail(maxFailures: Int, now: Date) {
        failures += 1
        guard failures >= max(1, maxFailures) else { return }
        locks += 1
        lockedUntil = now.addingTimeInterval(
            Double(StoreTime.milliseconds(Self.lockDuration(forLock: locks))) / 1000)
        failures = 0
    }

    private mutating func succeed() {
        failures = 0
        locks = 0
        lockedUntil = nil
    }

    /// Where `hash` is among `hashes`, every one compared in constant time.
    private static func index(of hash: [UInt8], in hashes: [[UInt8]]) -> Int? {
        var found: Int?
        for (index, stored) in hashes.enumerated() where HMACSHA256.constantTimeEqual(stored, hash) {
            found = index
        }
        return found
    }
}

/// What judging a code found.
public enum TOTPJudgement: Sendable, Equatable {
    /// No such factor.
    case notFound
    /// Locked until ``TOTPFactor/lockedUntil``; nothing was judged.
    case locked(TOTPFactor)
    /// The code is right; `confirmed` when this check made the factor active.
    case accepted(TOTPFactor, confirmed: Bool)
    /// The code's step was already used: a replay.
    case alreadyUsed(TOTPFactor)
    /// The code is wrong; one failure was counted.
    case incorrect(TOTPFactor)
}

/// What using a recovery code found.
public enum TOTPRecovery: Sendable, Equatable {
    /// No such factor.
    case notFound
    /// The factor is not confirmed yet; nothing was judged.
    case notActive(TOTPFactor)
    /// The code was one of the factor's and is used up.
    case used(TOTPFactor)
    /// The code was one of the factor's and was used before: a replay; nothing was counted.
    case alreadyUsed(TOTPFactor)
    /// The code is none of the factor's; one failure was counted.
    case unknown(TOTPFactor)
    /// The code is none of the factor's, which is locked; nothing was counted.
    case lockedUnknown(TOTPFactor)
}

/// Where authenticator factors live; every method is one atomic step, as in ``VerificationStore``.
public protocol TOTPFactorStore: Sendable {
    /// Stores a new factor.
    func insertFactor(_ factor: TOTPFactor) async throws(StoreError)

    /// The factor with an identifier, or `nil`.
    func factor(id: String) async throws(StoreError) -> TOTPFactor?

    /// Runs ``TOTPFactor/judge(matchedStep:maxFailures:now:)`` atomically.
    func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement

    /// Runs ``TOTPFactor/recover(hash:maxFailures:now:)`` atomically.
    func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPRecovery

    /// Replaces the recovery codes' HMACs and forgets the used ones; returns the factor afterwards,
    /// or `nil` when there is none.
    func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor?

    /// Deletes a factor; whether there was one.
    func deleteFactor(id: String) async throws(StoreError) -> Bool
}
