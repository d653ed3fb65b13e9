import Foundation
import OTPCore
import OTPEngine

// Authenticator factors: one row each, locked and judged in one transaction.

extension PostgresStore {
    /// Stores a new factor.
    public func insertFactor(_ factor: TOTPFactor) async throws(StoreError) {
        _ = try await statement(
            "INSERT INTO otp_totp_factors (id, account, issuer, sealed_secret, status, last_step, failures, "
                + "recovery, created_at, locked_until, locks, used_recovery) "
                + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            Self.columns(of: factor))
    }

    /// The factor with an identifier.
    public func factor(id: String) async throws(StoreError) -> TOTPFactor? {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try Self.readFactor(db, id: id, locking: false)
        }
    }

    /// Judges a code in one transaction.
    public func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement {
        try await changeFactor(id, missing: .notFound) {
            $0.judge(matchedStep: matchedStep, maxFailures: maxFailures, now: now)
        }
    }

    /// Uses a recovery code in one transaction.
    public func recoverFactor(
        id: String, hash: [UInt8], maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPRecovery {
        try await changeFactor(id, missing: .notFound) {
            $0.recover(hash: hash, maxFailures: maxFailures, now: now)
        }
    }

    /// Replaces the recovery codes.
    public func replaceRecoveryCodes(id: String, hashes: [[UInt8]]) async throws(StoreError) -> TOTPFactor? {
        try await changeFactor(id, missing: nil) { factor -> TOTPFactor? in
            factor.recoveryHashes = hashes
            factor.usedRecoveryHashes = []
            return factor
        }
    }

    /// Deletes a factor.
    public func deleteFactor(id: String) async throws(StoreError) -> Bool {
        try await statement("DELETE FROM otp_totp_factors WHERE id = $1", [.text(id)]).affected > 0
    }

    /// Locks a factor, applies a change and writes it back, in one transaction.
    func changeFactor<Outcome: Sendable>(
        _ id: String, missing: Outcome, _ change: @escaping @Sendable (inout TOTPFactor) -> Outcome
    ) async throws(StoreError) -> Outcome {
        try await transaction { (db: PostgresConnection) throws(StoreError) -> Outcome in
            guard var factor = try Self.readFactor(db, id: id, locking: true) else { return missing }
            let outcome = change(&factor)
            try db.query(
                "UPDATE otp_totp_factors SET status = $1, last_step = $2, failures = $3, recovery = $4, "
                    + "locked_until = $5, locks = $6, used_recovery = $7 WHERE id = $8",
                [
                    .text(factor.status.rawValue), .integer(factor.lastUsedStep),
                    .integer(Int64(factor.failures)), .bytes(TOTPFactor.concatenated(factor.recoveryHashes)),
                    Self.time(factor.lockedUntil), .integer(Int64(factor.locks)),
                    .bytes(TOTPFactor.concatenated(factor.usedRecoveryHashes)), .text(id),
                ])
            return outcome
        }
    }

    static func columns(of factor: TOTPFactor) -> [PostgresValue] {
        [
            .text(factor.id), .text(factor.account), .text(factor.issuer), .bytes(factor.sealedSecret),
            .text(factor.status.rawValue), .integer(factor.lastUsedStep),
            .integer(Int64(factor.failures)), .bytes(TOTPFactor.concatenated(factor.recoveryHashes)),
            .integer(StoreTime.milliseconds(factor.createdAt)), time(factor.lockedUntil),
            .integer(Int64(factor.locks)), .bytes(TOTPFactor.concatenated(factor.usedRecoveryHashes)),
        ]
    }

    static func readFactor(
        _ db: PostgresConnection, id: String, locking: Bool
    ) throws(StoreError) -> TOTPFactor? {
        let rows = try db.query(
            "SELECT id, account, issuer, sealed_secret, status, last_step, failures, recovery, created_at, "
                + "locked_until, locks, used_recovery FROM otp_totp_factors WHERE id = $1"
                + (locking ? " FOR UPDATE" : ""),
            [.text(id)]
        ).rows
        guard let row = rows.first else { return nil }
        guard row.count == 12, let id = row.text(0), let account = row.text(1), let issuer = row.text(2),
            let sealed = row.bytes(3), let status = row.text(4).flatMap(TOTPFactor.Status.init(rawValue:)),
            let failures = row.integer(6), let created = row.integer(8),
            let recovery = TOTPFactor.recoveryHashes(concatenated: row.bytes(7) ?? []),
            let used = TOTPFactor.recoveryHashes(concatenated: row.bytes(11) ?? [])
        else { throw StoreError("postgres: an unreadable factor row") }
        return TOTPFactor(
            id: id, account: account, issuer: issuer, sealedSecret: sealed, status: status,
            lastUsedStep: row.integer(5), failures: Int(failures), recoveryHashes: recovery,
            createdAt: StoreTime.date(milliseconds: created),
            lockedUntil: row.integer(9).map { StoreTime.date(milliseconds: $0) },
            locks: Int(row.integer(10) ?? 0), usedRecoveryHashes: used)
    }
}
