import Foundation
import OTPCore
import OTPEngine

// Authenticator factors: one row each, judged in one transaction. Every write commits at
// `synchronous=FULL` (`run(durable: true)`), whatever the store's durability: a step or recovery code
// used just before a power failure must stay used.

extension SQLiteStore {
    /// Stores a new factor.
    public func insertFactor(_ factor: TOTPFactor) async throws(StoreError) {
        _ = try await run(durable: true) { (db: SQLiteConnection) throws(StoreError) in
            try db.query(
                "INSERT INTO otp_totp_factors (id, account, issuer, sealed_secret, status, last_step, failures, "
                    + "recovery, created_at, locked_until, locks, used_recovery) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                Self.columns(of: factor))
        }
    }

    /// The factor with an identifier.
    public func factor(id: String) async throws(StoreError) -> TOTPFactor? {
        try await run { (db: SQLiteConnection) throws(StoreError) in try Self.readFactor(db, id: id) }
    }

    /// Judges a code in one immediate transaction.
    public func judgeFactor(
        id: String, matchedStep: Int64?, maxFailures: Int, now: Date
    ) async throws(StoreError) -> TOTPJudgement {
        try await changeFactor(id, missing: .notFound) {
            $0.judge(matchedStep: matchedStep, maxFailures: maxFailures, now: now)
        }
    }

    /// Uses a recovery code in one immediate transaction.
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
        try await run(durable: true) { (db: SQLiteConnection) throws(StoreError) in
            try db.query("DELETE FROM otp_totp_factors WHERE id = ?", [.text(id)])
            return db.changes > 0
        }
    }

    func changeFactor<Outcome: Sendable>(
        _ id: String, missing: Outcome, _ change: @escaping @Sendable (inout TOTPFactor) -> Outcome
    ) async throws(StoreError) -> Outcome {
        try await run(durable: true) { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) -> Outcome in
                guard var factor = try Self.readFactor(db, id: id) else { return missing }
                let outcome = change(&factor)
                try db.query(
                    "UPDATE otp_totp_factors SET status = ?, last_step = ?, failures = ?, recovery = ?, "
                        + "locked_until = ?, locks = ?, used_recovery = ? WHERE id = ?",
                    [
                        .text(factor.status.rawValue), factor.lastUsedStep.map { .integer($0) } ?? .null,
                        .integer(Int64(factor.failures)),
                        .blob(TOTPFactor.concatenated(factor.recoveryHashes)),
                        factor.lockedUntil.map { .integer(StoreTime.milliseconds($0)) } ?? .null,
                        .integer(Int64(factor.locks)),
                        .blob(TOTPFactor.concatenated(factor.usedRecoveryHashes)),
                        .text(id),
                    ])
                return outcome
            }
        }
    }

    static func columns(of factor: TOTPFactor) -> [SQLiteValue] {
        [
            .text(factor.id), .text(factor.account), .text(factor.issuer), .blob(factor.sealedSecret),
            .text(factor.status.rawValue), factor.lastUsedStep.map { .integer($0) } ?? .null,
            .integer(Int64(factor.failures)), .blob(TOTPFactor.concatenated(factor.recoveryHashes)),
            .integer(StoreTime.milliseconds(factor.createdAt)),
            factor.lockedUntil.map { .integer(StoreTime.milliseconds($0)) } ?? .null,
            .integer(Int64(factor.locks)), .blob(TOTPFactor.concatenated(factor.usedRecoveryHashes)),
        ]
    }

    static func readFactor(_ db: SQLiteConnection, id: String) throws(StoreError) -> TOTPFactor? {
        let rows = try db.query(
            "SELECT id, account, issuer, sealed_secret, status, last_step, failures, recovery, created_at, "
                + "locked_until, locks, used_recovery FROM otp_totp_factors WHERE id = ?",
            [.text(id)])
        guard let row = rows.first else { return nil }
        guard row.count == 12, let id = row[0].text, let account = row[1].text, let issuer = row[2].text,
            case .blob(let sealed) = row[3],
            let status = row[4].text.flatMap(TOTPFactor.Status.init(rawValue:)),
            let failures = row[6].integer, let created = row[8].integer
        else { throw StoreError("sqlite: an unreadable factor row") }
        // An empty blob reads back as NULL.
        guard let recovery = TOTPFactor.recoveryHashes(concatenated: row[7].blob ?? []),
            let used = TOTPFactor.recoveryHashes(concatenated: row[11].blob ?? [])
        else {
            throw StoreError("sqlite: an unreadable factor row")
        }
        return TOTPFactor(
            id: id, account: account, issuer: issuer, sealedSecret: sealed, status: status,
            lastUsedStep: row[5].integer, failures: Int(failures), recoveryHashes: recovery,
            createdAt: StoreTime.date(milliseconds: created),
            lockedUntil: row[9].integer.map { StoreTime.date(milliseconds: $0) },
            locks: Int(row[10].integer ?? 0),
            usedRecoveryHashes: used)
    }
}
