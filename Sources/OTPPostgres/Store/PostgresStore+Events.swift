import Foundation
import OTPCore
import OTPEngine

// The lifecycle event outbox: events written in the same transaction as the change that caused
// them, claimed under a lease with SKIP LOCKED, and marked delivered or due again.

extension PostgresStore {
    /// Hands out each verification's oldest undelivered event when due, leased until `leaseUntil`.
    ///
    /// Rows another deliverer is claiming are skipped (`FOR UPDATE SKIP LOCKED`), so deliverers
    /// on several servers never wait for each other nor get the same event. An event this version
    /// cannot read (a kind or channel it does not know) is not handed out: it waits a day, counted
    /// as a failure and in the backlog, and the others go on.
    public func claimEvents(now: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [OutboxEvent]
    {
        try await transaction { (db: PostgresConnection) throws(StoreError) -> [OutboxEvent] in
            let rows = try db.query(
                "SELECT e.id, e.kind, e.verification_id, e.channel, e.masked_to, e.at, e.failures, e.ref "
                    + "FROM otp_events e WHERE NOT e.delivered AND e.due_at <= $1 AND e.seq = "
                    + "(SELECT min(f.seq) FROM otp_events f WHERE NOT f.delivered "
                    + "AND f.verification_id = e.verification_id) ORDER BY e.seq LIMIT $2 "
                    + "FOR UPDATE OF e SKIP LOCKED",
                [.integer(StoreTime.milliseconds(now)), .integer(Int64(max(0, limit)))]
            ).rows
            var claimed: [OutboxEvent] = []
            for row in rows {
                guard row.count == 8, let id = row.text(0) else {
                    throw StoreError("postgres: an event row without an id")
                }
                guard let kind = row.text(1).flatMap(LifecycleEvent.Kind.init(rawValue:)),
                    let verification = row.text(2),
                    let channel = row.text(3).flatMap(Channel.init(rawValue:)),
                    let to = row.text(4), let at = row.integer(5), let failures = row.integer(6)
                else {
                    // Written by another version, say, before a rollback: it waits (and keeps its
                    // verification's later events waiting), counted in the backlog, while every
                    // other verification's events go on.
                    try db.query(
                        "UPDATE otp_events SET due_at = $1, failures = failures + 1 WHERE id = $2",
                        [
                            .integer(
                                StoreTime.milliseconds(now.addingTimeInterval(Self.unreadableEventWait))),
                            .text(id),
                        ])
                    continue
                }
                try db.query(
                    "UPDATE otp_events SET due_at = $1 WHERE id = $2",
                    [.integer(StoreTime.milliseconds(leaseUntil)), .text(id)])
                claimed.append(
                    OutboxEvent(
                        event: LifecycleEvent(
                            id: id, kind: kind, verificationID: verification, channel: channel, to: to,
                            at: StoreTime.date(milliseconds: at), ref: row.text(7)),
                        failures: Int(failures)))
            }
            return claimed
        }
    }

    /// Marks an event delivered; its row stays until its verification is purged.
    public func eventDelivered(id: String) async throws(StoreError) {
        _ = try await statement("UPDATE otp_events SET delivered = true WHERE id = $1", [.text(id)])
    }

    /// Counts a failed delivery and sets the next try, while the event's lease is the one given.
    public func eventFailed(id: String, retryAt: Date, leasedUntil: Date) async throws(StoreError) {
        _ = try await statement(
            "UPDATE otp_events SET failures = failures + 1, due_at = $1 "
                + "WHERE id = $2 AND NOT delivered AND due_at = $3",
            [
                .integer(StoreTime.milliseconds(retryAt)), .text(id),
                .integer(StoreTime.milliseconds(leasedUntil)),
            ])
    }

    /// Notes `expired` for pending codes past their lifetime that have none, in one transaction.
    public func noteExpiries(now: Date, limit: Int) async throws(StoreError) -> Int {
        guard let masking = events else { return 0 }
        return try await transaction { (db: PostgresConnection) throws(StoreError) -> Int in
            let rows = try db.query(
                "SELECT \(PostgresSQL.verificationColumns) FROM otp_verifications v "
                    + "WHERE v.state = 'pending' AND v.expires_at <= $1 "
                    + "AND NOT EXISTS (SELECT 1 FROM otp_events e WHERE e.id = "
                    + "'evt_' || v.id || '.expired.' || v.sends_used) ORDER BY v.expires_at LIMIT $2 "
                    // A code a step holds (a cancel under way) is left to the next sweep, which sees
                    // its state as that step leaves it: never `canceled` and `expired` for one code.
                    + "FOR UPDATE OF v SKIP LOCKED",
                [.integer(StoreTime.milliseconds(now)), .integer(Int64(max(0, limit)))]
            ).rows
            var written = 0
            for row in rows {
                let record = try Self.record(from: row)
                written += try Self.note(
                    db, LifecycleEvent(.expired, of: record, at: record.expiresAt, masking: masking))
            }
            return written
        }
    }

    /// The events not yet delivered.
    public func undeliveredEventCount() async throws(StoreError) -> Int {
        let rows = try await statement("SELECT count(*) FROM otp_events WHERE NOT delivered", []).rows
        return Int(rows.first?.integer(0) ?? 0)
    }

    /// Writes an event to the outbox unless its id is already there; answers the rows written.
    @discardableResult
    static func note(_ db: PostgresConnection, _ event: LifecycleEvent?) throws(StoreError) -> Int {
        guard let event else { return 0 }
        let statement = noting(event)
        return try db.query(statement.sql, statement.parameters).affected
    }

    /// The statement that writes an event to the outbox unless its id is already there.
    static func noting(_ event: LifecycleEvent) -> PostgresStatement {
        let at = PostgresValue.integer(StoreTime.milliseconds(event.at))
        return PostgresStatement(
            "INSERT INTO otp_events (id, verification_id, kind, channel, masked_to, at, due_at, ref) "
                + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
            [
                .text(event.id), .text(event.verificationID), .text(event.kind.rawValue),
                .text(event.channel.rawValue), .text(event.to), at, at, .text(event.ref),
            ])
    }
}
