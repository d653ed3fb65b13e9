import Foundation
import OTPCore
import OTPEngine

// Verifications, idempotency keys and rate counters as rows, and the statements that read and
// write them.

extension PostgresStore {
    /// Locks a record, applies a transition and writes it back, in one transaction.
    func mutate<Outcome: Sendable>(
        _ id: String, missing: Outcome, eventsAt now: Date? = nil,
        _ change: @escaping @Sendable (inout VerificationRecord) -> Outcome
    ) async throws(StoreError) -> Outcome {
        let eventTime = recordsEvents ? now : nil
        let masking = events ?? .plain
        return try await transaction { (db: PostgresConnection) throws(StoreError) -> Outcome in
            guard var record = try Self.read(db, id: id, locking: true) else { return missing }
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

    /// The statements that write a new verification's row, its claim and its event.
    static func inserting(
        _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date, events: DestinationMasking?
    ) -> [PostgresStatement] {
        var statements: [PostgresStatement] = []
        if let claim {
            statements.append(
                PostgresStatement(
                    "INSERT INTO otp_idempotency (key, verification_id, fingerprint, expires_at) "
                        + "VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO UPDATE SET "
                        + "verification_id = excluded.verification_id, fingerprint = excluded.fingerprint, "
                        + "expires_at = excluded.expires_at",
                    [
                        .text(claim.key), .text(record.id), .bytes(Array(claim.fingerprint.utf8)),
                        .integer(StoreTime.milliseconds(claim.expiresAt)),
                    ]))
        }
        statements.append(PostgresStatement(PostgresSQL.insertVerification, columns(of: record)))
        if let events, let event = LifecycleEvent.caused(from: nil, to: record, at: now, masking: events) {
            statements.append(noting(event))
        }
        return statements
    }

    /// Writes a changed record back: only its attempts when nothing else changed (a wrong code),
    /// else every column that can change.
    static func write(
        _ db: PostgresConnection, _ record: VerificationRecord, over before: VerificationRecord
    ) throws(StoreError) {
        guard let statement = writing(record, over: before) else { return }
        try db.query(statement.sql, statement.parameters)
    }

    /// Writes a changed record back.
    static func write(_ db: PostgresConnection, _ record: VerificationRecord) throws(StoreError) {
        let statement = writing(record)
        try db.query(statement.sql, statement.parameters)
    }

    /// The statement that writes a record back over what it was: only its attempts when nothing
    /// else changed (a wrong code), else every column that can change; `nil` when nothing changed.
    static func writing(_ record: VerificationRecord, over before: VerificationRecord) -> PostgresStatement? {
        guard record != before else { return nil }
        var attemptsOnly = before
        attemptsOnly.attemptsLeft = record.attemptsLeft
        guard attemptsOnly == record else { return writing(record) }
        return PostgresStatement(
            PostgresSQL.updateAttempts, [.integer(Int64(record.attemptsLeft)), .text(record.id)])
    }

    /// The statement that writes every column of a record that can change.
    static func writing(_ record: VerificationRecord) -> PostgresStatement {
        PostgresStatement(
            PostgresSQL.updateVerification,
            [
                .bytes(record.codeHash), .text(record.state.rawValue), .integer(Int64(record.attemptsLeft)),
                .integer(Int64(record.sendsUsed)), .integer(StoreTime.milliseconds(record.expiresAt)),
                time(record.resendAvailableAt), .integer(StoreTime.milliseconds(record.purgeAt)),
                .text(record.resendLease?.token), time(record.resendLease?.until), .text(record.id),
            ])
    }

    /// The verification with an identifier; with `locking`, its row stays locked until the
    /// transaction ends.
    static func read(
        _ db: PostgresConnection, id: String, locking: Bool
    ) throws(StoreError) -> VerificationRecord? {
        let rows = try db.query(
            locking ? PostgresSQL.readVerificationForUpdate : PostgresSQL.readVerification, [.text(id)]
        ).rows
        guard let row = rows.first else { return nil }
        return try record(from: row)
    }

    static func idempotencyEntry(
        _ db: PostgresConnection, key: String, now: Date
    ) throws(StoreError) -> IdempotencyEntry? {
        let statement = readingIdempotencyEntry(key: key, now: now)
        return try idempotencyEntry(db.query(statement.sql, statement.parameters))
    }

    /// The statement that reads an idempotency key's live entry; ``idempotencyEntry(_:)`` reads its answer.
    static func readingIdempotencyEntry(key: String, now: Date) -> PostgresStatement {
        PostgresStatement(
            "SELECT verification_id, fingerprint, expires_at FROM otp_idempotency "
                + "WHERE key = $1 AND expires_at > $2",
            [.text(key), .integer(StoreTime.milliseconds(now))])
    }

    /// The idempotency entry a ``readingIdempotencyEntry(key:now:)`` statement answered, if any.
    static func idempotencyEntry(_ result: PostgresResult) throws(StoreError) -> IdempotencyEntry? {
        guard let row = result.rows.first else { return nil }
        guard let id = row.text(0), let fingerprint = row.bytes(1), let expires = row.integer(2) else {
            throw StoreError("postgres: malformed idempotency row")
        }
        return IdempotencyEntry(
            verificationID: id, fingerprint: String(decoding: fingerprint, as: UTF8.self),
            expiresAt: StoreTime.date(milliseconds: expires))
    }

    /// Locks each permit's counter, in key order, creating the ones that do not exist; answers
    /// each key's stored arrival (`nil` for none).
    ///
    /// A counter that exists is locked with `SELECT … FOR UPDATE`, which writes no new row
    /// version. A missing one is made by an upsert with an arrival of -1 (none), which also locks
    /// it, or, when another step made it meanwhile, waits for that step and reads its arrival:
    /// two steps that need the same new counter never both find it absent.
    static func lockArrivals(
        _ db: PostgresConnection, _ keys: [String]
    ) throws(StoreError) -> [String: Int64?] {
        var arrivals: [String: Int64?] = [:]
        for key in Set(keys).sorted() {
            var row = try db.query(PostgresSQL.lockArrival, [.text(key)]).rows.first
            if row == nil { row = try db.query(PostgresSQL.createArrival, [.text(key)]).rows.first }
            guard let arrival = row?.integer(0) else { throw StoreError("postgres: malformed rate row") }
            arrivals[key] = arrival < 0 ? nil : arrival
        }
        return arrivals
    }

    /// Takes every permit or none, inside a transaction.
    static func take(
        _ db: PostgresConnection, _ permits: [RatePermit], now: Date
    ) throws(StoreError) -> RateDecision {
        guard !permits.isEmpty else { return .allowed }
        var stored = try lockArrivals(db, permits.map(\.key))
        var writes: [PostgresStatement] = []
        let decision = take(permits, stored: &stored, now: now, writes: &writes)
        for write in writes { try db.query(write.sql, write.parameters) }
        return decision
    }

    /// Gives permits back, inside a transaction.
    static func give(_ db: PostgresConnection, _ permits: [RatePermit], now: Date) throws(StoreError) {
        guard !permits.isEmpty else { return }
        var stored = try lockArrivals(db, permits.map(\.key))
        var writes: [PostgresStatement] = []
        give(permits, stored: &stored, now: now, writes: &writes)
        for write in writes { try db.query(write.sql, write.parameters) }
    }

    /// Judges permits against the arrivals read (and locked), adding the statements that store
    /// the new arrivals to `writes`; `stored` is updated for later permits of the same step.
    static func take(
        _ permits: [RatePermit], stored: inout [String: Int64?], now: Date, writes: inout [PostgresStatement]
    ) -> RateDecision {
        guard !permits.isEmpty else { return .allowed }
        let known = stored
        let (decision, arrivals) = RatePermit.admitAll(permits, now: StoreTime.milliseconds(now)) { key in
            known[key] ?? nil
        }
        for (key, arrival) in arrivals.sorted(by: { $0.key < $1.key }) {
            stored[key] = arrival
            writes.append(PostgresStatement(PostgresSQL.updateArrival, [.integer(arrival), .text(key)]))
        }
        return decision
    }

    /// Gives permits back against the arrivals read (and locked), adding the statements that store
    /// or delete them to `writes`.
    static func give(
        _ permits: [RatePermit], stored: inout [String: Int64?], now: Date, writes: inout [PostgresStatement]
    ) {
        let nowMilliseconds = StoreTime.milliseconds(now)
        for permit in permits {
            let arrival = permit.refund(storedArrival: stored[permit.key] ?? nil, now: nowMilliseconds)
            stored[permit.key] = arrival
            if let arrival {
                writes.append(
                    PostgresStatement(PostgresSQL.updateArrival, [.integer(arrival), .text(permit.key)]))
            } else {
                writes.append(PostgresStatement(PostgresSQL.deleteArrival, [.text(permit.key)]))
            }
        }
    }

    /// The statements that lock each counter of `keys` (creating the missing ones), one per key in
    /// key order, for the first round trip of a pipelined step; ``arrivals(_:_:)`` reads their answers.
    static func lockingArrivals(_ keys: [String]) -> (keys: [String], statements: [PostgresStatement]) {
        let ordered = Set(keys).sorted()
        return (ordered, ordered.map { PostgresStatement(PostgresSQL.createArrival, [.text($0)]) })
    }

    /// The arrivals the statements of ``lockingArrivals(_:)`` answered, by key (`nil` for none).
    static func arrivals(
        _ keys: [String], _ results: ArraySlice<PostgresResult>
    ) throws(StoreError) -> [String: Int64?] {
        guard results.count == keys.count else { throw StoreError("postgres: malformed rate rows") }
        var arrivals: [String: Int64?] = [:]
        for (key, result) in zip(keys, results) {
            guard let arrival = result.rows.first?.integer(0) else {
                throw StoreError("postgres: malformed rate row")
            }
            arrivals[key] = arrival < 0 ? nil : arrival
        }
        return arrivals
    }

    /// How many rows one purge statement deletes at most.
    static let purgeBatch = 1000

    /// Deletes what is past its time, a batch per statement, each statement its own transaction.
    static func purge(_ db: PostgresConnection, now: Date) throws(StoreError) -> Int {
        let milliseconds = PostgresValue.integer(StoreTime.milliseconds(now))
        let batch = PostgresValue.integer(Int64(purgeBatch))
        func deleteAll(_ sql: String, _ parameters: [PostgresValue]) throws(StoreError) -> Int {
            var total = 0
            while true {
                let deleted = try db.query(sql, parameters).affected
                total += deleted
                if deleted < purgeBatch { return total }
            }
        }
        // Each batch skips the rows a step holds (`SKIP LOCKED`: never a wait, never a deadlock with a
        // step that locks several), and the time is asked again of the row deleted: a row a step
        // renewed after the batch was chosen is kept.
        let purged = try deleteAll(
            "DELETE FROM otp_verifications WHERE purge_at <= $1 AND id IN "
                + "(SELECT id FROM otp_verifications WHERE purge_at <= $1 ORDER BY id LIMIT $2 "
                + "FOR UPDATE SKIP LOCKED)", [milliseconds, batch])
        _ = try deleteAll(
            "DELETE FROM otp_idempotency WHERE expires_at <= $1 AND key IN "
                + "(SELECT key FROM otp_idempotency WHERE expires_at <= $1 ORDER BY key LIMIT $2 "
                + "FOR UPDATE SKIP LOCKED)", [milliseconds, batch])
        _ = try deleteAll(
            "DELETE FROM otp_rates WHERE arrival <= $1 AND key IN "
                + "(SELECT key FROM otp_rates WHERE arrival <= $1 ORDER BY key LIMIT $2 FOR UPDATE SKIP LOCKED)",
            [milliseconds, batch])
        _ = try db.query("DELETE FROM otp_fraud_counts WHERE keep_until <= $1", [milliseconds])
        _ = try db.query("DELETE FROM otp_fraud_blocks WHERE forget_at <= $1", [milliseconds])
        if purged > 0 {
            _ = try deleteAll(
                "DELETE FROM otp_events WHERE seq IN (SELECT e.seq FROM otp_events e WHERE e.delivered "
                    + "AND NOT EXISTS (SELECT 1 FROM otp_verifications v WHERE v.id = e.verification_id) "
                    + "LIMIT $1)", [batch])
        }
        return purged
    }

    static func time(_ date: Date?) -> PostgresValue {
        .integer(date.map { StoreTime.milliseconds($0) })
    }

    static func columns(of record: VerificationRecord) -> [PostgresValue] {
        [
            .text(record.id), .text(record.channel.rawValue), .text(record.destination),
            .integer(Int64(record.codeLength)), .bytes(record.codeHash), .text(record.state.rawValue),
            .integer(Int64(record.attemptsLeft)), .integer(Int64(record.sendsUsed)),
            .integer(StoreTime.milliseconds(record.createdAt)),
            .integer(StoreTime.milliseconds(record.expiresAt)),
            time(record.resendAvailableAt), .integer(StoreTime.milliseconds(record.purgeAt)),
            .text(record.resendLease?.token), time(record.resendLease?.until),
            .text(record.locale), .text(record.ref), .text(record.transaction?.canonicalJSON),
        ]
    }

    static func record(from row: PostgresRow) throws(StoreError) -> VerificationRecord {
        guard row.count == 17, let id = row.text(0),
            let channel = row.text(1).flatMap(Channel.init(rawValue:)),
            let destination = row.text(2), let codeLength = row.integer(3), let codeHash = row.bytes(4),
            let state = row.text(5).flatMap(VerificationRecord.State.init(rawValue:)),
            let attemptsLeft = row.integer(6), let sendsUsed = row.integer(7), let createdAt = row.integer(8),
            let expiresAt = row.integer(9), let purgeAt = row.integer(11)
        else { throw StoreError("postgres: malformed verification row") }
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

/// The statements of the hot paths, made once.
enum PostgresSQL {
    static let verificationColumns =
        "id, channel, destination, code_length, code_hash, state, attempts_left, sends_used, created_at, "
        + "expires_at, resend_available_at, purge_at, lease_token, lease_until, locale, ref, txn"
    static let insertVerification =
        "INSERT INTO otp_verifications (\(verificationColumns)) "
        + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)"
    static let readVerification = "SELECT \(verificationColumns) FROM otp_verifications WHERE id = $1"
    static let readVerificationForUpdate = readVerification + " FOR UPDATE"
    static let updateVerification =
        "UPDATE otp_verifications SET code_hash = $1, state = $2, attempts_left = $3, sends_used = $4, "
        + "expires_at = $5, resend_available_at = $6, purge_at = $7, lease_token = $8, lease_until = $9 "
        + "WHERE id = $10"
    static let updateAttempts = "UPDATE otp_verifications SET attempts_left = $1 WHERE id = $2"
    static let lockArrival = "SELECT arrival FROM otp_rates WHERE key = $1 FOR UPDATE"
    static let createArrival =
        "INSERT INTO otp_rates (key, arrival) VALUES ($1, -1) "
        + "ON CONFLICT (key) DO UPDATE SET arrival = otp_rates.arrival RETURNING arrival"
    static let updateArrival = "UPDATE otp_rates SET arrival = $1 WHERE key = $2"
    static let deleteArrival = "DELETE FROM otp_rates WHERE key = $1"
    static let lockIdempotencyKey = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
}
