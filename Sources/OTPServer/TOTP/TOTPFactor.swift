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
    /// Failed checks and recoveries in a row; at the limit the factor is locked.
    public var failures: Int
    /// HMACs of the recovery codes not used yet.
    public var recoveryHashes: [[UInt8]]
    /// When it was enrolled.
    public var createdAt: Date

    /// Creates a factor.
    public init(
        id: String, account: String, issuer: String, sealedSecret: [UInt8], status: Status = .unconfirmed,
        lastUsedStep: Int64? = nil, failures: Int = 0, recoveryHashes: [[UInt8]] = [], createdAt: Date
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

    /// Whether `maxFailures` failures in a row have locked the factor.
    public func isLocked(maxFailures: Int) -> Bool {
        failures >= maxFailures
    }

    /// Judges a checked code, given the time step it matched (`nil`: it matched none).
    ///
    /// A locked factor judges nothing. A code of a step already used (or earlier) is a replay and
    /// changes nothing. A right code records its step, clears the failures and confirms the factor;
    /// a wrong one counts a failure.
    public mutating func judge(matchedStep: Int64?, maxFailures: Int) -> TOTPJudgement {
        if isLocked(maxFailures: maxFailures) { return .locked(self) }
        guard let step = matchedStep else {
            failures += 1
            return .incorrect(self)
        }
        if let last = lastUsedStep, step <= last { return .alreadyUsed(self) }
        let confirming = status == .unconfirmed
        lastUsedStep = step
        failures = 0
        status = .active
        return .accepted(self, confirmed: confirming)
    }

    /// Uses a recovery code, given its HMAC.
    ///
    /// A known one is removed and clears the failures; an unknown one counts a failure. A locked
    /// factor takes none.
    public mutating func recover(hash: [UInt8], maxFailures: Int) -> TOTPRecovery {
        if isLocked(maxFailures: maxFailures) { return .locked(self) }
        var found: Int?
        for (index, stored) in recoveryHashes.enumerated() where HMACSHA256.constantTimeEqual(stored, hash) {
            found = index
        }
        guard let found else {
            failures += 1
            return .unknown(self)
        }
        recoveryHashes.remove(at: found)
        failures = 0
        return .used(self)
    }
}

/// What judging a code found.
public enum TOTPJudgement: Sendable, Equatable {
    /// No such factor.
    case notFound
    /// Too many failures in a row; nothing was judged.
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
    /// Too many failures in a row; nothing was judged.
    case locked(TOTPFactor)
    /// The code was one of the factor's and is used up.
    case used(TOTPFactor)
    /// The code is none of the factor's; one failure was counted.
    case unknown(TOTPFactor)
}

/// Where authenticator factors live; every method is one atomic step, as in ``VerificationStore``.
public protocol TOTPFactorStore: Sendable {
    /// Stores a new factor.
    func insertFactor(_ factor: TOTPFactor) async throws(StoreError)

    /// The factor with an identifier, or `nil`.
    func factor(id: String) async throws(StoreError) -> TOTPFactor?

    /// Runs ``TOTPFactor/judge(matchedStep:maxFailures:)`` atomically.
    func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int
    ) async throws(StoreError) -> TOTPJudgement

    /// Runs ``TOTPFactor/recover(hash:maxFailures:)`` atomically.
    func recoverFactor(id: String, hash: [UInt8], maxFailures: Int) async throws(StoreError) -> TOTPRecovery

    /// Replaces the recovery codes' HMACs; returns the factor afterwards, or `nil` when there is none.
    func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor?

    /// Deletes a factor; whether there was one.
    func deleteFactor(id: String) async throws(StoreError) -> Bool
}
