import Foundation
import OTPCore
import OTPEngine

// Verifications, idempotency keys and rate counters as rows, and the statements that read and
// write them.

extension SQLiteStore {
    /// Reads a record, applies a transition and writes it back, in one immediate transaction.
    func mutate<Outcome: Sendable>(
        _ id: String, missing: Outcome, eventsAt now: Date? = nil,
        _ change: @escaping @Sendable (inout VerificationRecord) -> Outcome
    ) async throws(StoreError) -> Outcome {
        let eventTime = recordsEvents ? now : nil
        let masking = events ?? .plain
        return try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) -> Outcome in
                guard var record = try Self.read(db, id: id) else { return missing }
                let before = record
                let outcome = change(&record)
                if record != before { try Self.write(db, record) }
                if let eventTime {
                    try Self.note(
                        db, LifecycleEvent.caused(from: before, to: record, at: eventTime, masking: masking))
                }
                return outcome
            }
        }
    }

    /// Writes a changed record back: only its attempts when nothing else changed (a wrong code),
    /// else every column that can change.
    static func write(
        _ db: SQLiteConnection, _ record: VerificationRecord, over before: VerificationRecord
    ) throws(StoreError) {
        var attemptsOnly = before
        attemptsOnly.attemptsLeft = record.attemptsLeft
        guard attemptsOnly == record else { return try write(db, record) }
        try db.query(SQL.updateAttempts, [.integer(Int64(record.attemptsLeft)), .text(record.id)])
    }

    /// Writes a changed record back.
    static func write(_ db: SQLiteConnection, _ record: VerificationRecord) throws(StoreError) {
        try db.query(
            SQL.updateVerification,
            [
                .blob(record.codeHash), .text(record.state.rawValue), .integer(Int64(record.attemptsLeft)),
                .integer(Int64(record.sendsUsed)), .integer(StoreTime.milliseconds(record.expiresAt)),
                optionalTime(record.resendAvailableAt), .integer(StoreTime.milliseconds(record.purgeAt)),
                record.resendLease.map { .text($0.token) } ?? .null, optionalTime(record.resendLease?.until),
                .text(record.id),
            ])
    }

    static func purge(_ db: SQLiteConnection, now: Date) throws(StoreError) -> Int {
        let milliseconds = StoreTime.milliseconds(now)
        try db.query(
            "DELETE FROM otp_deliveries WHERE verification_id IN "
                + "(SELECT id FROM otp_verifications WHERE purge_at <= ?)", [.integer(milliseconds)])
        try db.query("DELETE FROM otp_verifications WHERE purge_at <= ?", [.integer(milliseconds)])
        let purged = db.changes
        try db.query("DELETE FROM otp_idempotency WHERE expires_at <= ?", [.integer(milliseconds)])
        try db.query("DELETE FROM otp_rates WHERE arrival <= ?", [.integer(milliseconds)])
        try db.query("DELETE FROM otp_fraud_counts WHERE keep_until <= ?", [.integer(milliseconds)])
        try db.query("DELETE FROM otp_fraud_blocks WHERE forget_at <= ?", [.integer(milliseconds)])
        if purged > 0 {
            try db.query(
                "DELETE FROM otp_events WHERE delivered = 1 AND verification_id NOT IN "
                    + "(SELECT id FROM otp_verifications)")
        }
        return purged
    }

    static func read(_ db: SQLiteConnection, id: String) throws(StoreError) -> VerificationRecord? {
        try db.queryRow(SQL.readVerification, [.text(id)]) { (row: SQLiteRow) throws(StoreError) in
            try record(from: row)
        }
    }

    static func idempotencyEntry(
        _ db: SQLiteConnection, key: String, now: Date
    ) throws(StoreError)
        -> IdempotencyEntry?
    {
        let rows = try db.query(
            "SELECT verification_id, fingerprint, expires_at FROM otp_idempotency WHERE key = ? AND expires_at > ?",
            [.text(key), .integer(StoreTime.milliseconds(now))])
        guard let row = rows.first else { return nil }
        guard let id = row[0].text, let fingerprint = row[1].text, let expires = row[2].integer else {
            throw StoreError("sqlite: malformed idempotency row")
        }
        return IdempotencyEntry(
            verificationID: id, fingerprint: fingerprint, expiresAt: StoreTime.date(milliseconds: expires))
    }

    static func arrival(_ db: SQLiteConnection, key: String) throws(StoreError) -> Int64? {
        try db.queryInteger(SQL.readArrival, [.text(key)])
    }

    static func optionalTime(_ date: Date?) -> SQLiteValue {
        date.map { .integer(StoreTime.milliseconds($0)) } ?? .null
    }

    static func columns(of record: VerificationRecord) -> [SQLiteValue] {
        [
            .text(record.id), .text(record.channel.rawValue), .text(record.destination),
            .integer(Int64(record.codeLength)), .blob(record.codeHash), .text(record.state.rawValue),
            .integer(Int64(record.attemptsLeft)), .integer(Int64(record.sendsUsed)),
            .integer(StoreTime.milliseconds(record.createdAt)),
            .integer(StoreTime.milliseconds(record.expiresAt)),
            optionalTime(record.resendAvailableAt), .integer(StoreTime.milliseconds(record.purgeAt)),
            record.resendLease.map { .text($0.token) } ?? .null, optionalTime(record.resendLease?.until),
            record.locale.map { .text($0) } ?? .null, record.ref.map { .text($0) } ?? .null,
            record.transaction.map { .text($0.canonicalJSON) } ?? .null,
        ]
    }

    static func record(from row: SQLiteRow) throws(StoreError) -> VerificationRecord {
        guard row.columnCount == 17, let id = row.text(0),
            let channel = row.text(1).flatMap(Channel.init(rawValue:)),
            let destination = row.text(2), let codeLength = row.integer(3), let codeHash = row.blob(4),
            let state = row.text(5).flatMap(VerificationRecord.State.init(rawValue:)),
            let attemptsLeft = row.integer(6), let sendsUsed = row.integer(7), let createdAt = row.integer(8),
            let expiresAt = row.integer(9), let purgeAt = row.integer(11)
        else { throw StoreError("sqlite: malformed verification row") }
        var lease: ResendLease?
        if let token = row.text(12), let until = row.integer(13) {
            lease = ResendLease(token: token, until: StoreTime.date(milliseconds: until))
        }
        return VerificationRecord(
            id: id, channel: channel, destination: destination, codeLength: Int(codeLength),
            codeHash: codeHash,
            state: state, attemptsLeft: Int(attemptsLeft), sendsUsed: Int(sendsUsed),
            createdAt: StoreTime.date(milliseconds: createdAt),
            expiresAt: StoreTime.date(milliseconds: expiresAt),
            resendAvailableAt: row.integer(10).map { StoreTime.date(milliseconds: $0) },
            purgeAt: StoreTime.date(milliseconds: purgeAt), resendLease: lease, locale: row.text(14),
            ref: row.text(15), transaction: try row.text(16).map(TransactionDetails.stored))
    }
}

/// The statements of the hot paths, made once: built with `+` at each call, they would cost an
/// allocation and a copy per check before SQLite saw them.
enum SQL {
    static let insertVerification =
        "INSERT INTO otp_verifications (id, channel, destination, code_length, code_hash, state, "
        + "attempts_left, sends_used, created_at, expires_at, resend_available_at, purge_at, "
        + "lease_token, lease_until, locale, ref, txn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let readVerification =
        "SELECT id, channel, destination, code_length, code_hash, state, attempts_left, sends_used, created_at, "
        + "expires_at, resend_available_at, purge_at, lease_token, lease_until, locale, ref, txn "
        + "FROM otp_verifications WHERE id = ?"
    static let updateVerification =
        "UPDATE otp_verifications SET code_hash = ?, state = ?, attempts_left = ?, sends_used = ?, "
        + "expires_at = ?, resend_available_at = ?, purge_at = ?, lease_token = ?, lease_until = ? "
        + "WHERE id = ?"
    static let readArrival = "SELECT arrival FROM otp_rates WHERE key = ?"
    static let updateArrival = "UPDATE otp_rates SET arrival = ? WHERE key = ?"
    static let updateAttempts = "UPDATE otp_verifications SET attempts_left = ? WHERE id = ?"
    static let storeArrival =
        "INSERT INTO otp_rates (key, arrival) VALUES (?, ?) "
        + "ON CONFLICT (key) DO UPDATE SET arrival = excluded.arrival"
}
