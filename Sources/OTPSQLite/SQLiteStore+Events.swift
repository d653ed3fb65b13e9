import Foundation
import OTPCore
import OTPEngine

// The lifecycle event outbox: events written in the same transaction as the change that caused
// them, claimed under a lease, and marked delivered or due again.

extension SQLiteStore {
    /// Hands out each verification's oldest undelivered event when due, leased until `leaseUntil`.
    ///
    /// An event this version cannot read (a kind or channel it does not know) is not handed out:
    /// it waits a day, counted as a failure and in the backlog, and the others go on.
    public func claimEvents(now: Date, leaseUntil: Date, limit: Int) async throws(StoreError) -> [OutboxEvent]
    {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) -> [OutboxEvent] in
                let rows = try db.query(
                    "SELECT e.id, e.kind, e.verification_id, e.channel, e.masked_to, e.at, e.failures, e.ref "
                        + "FROM otp_events e WHERE e.delivered = 0 AND e.due_at <= ? AND e.seq = "
                        + "(SELECT MIN(f.seq) FROM otp_events f WHERE f.delivered = 0 "
                        + "AND f.verification_id = e.verification_id) ORDER BY e.seq LIMIT ?",
                    [.integer(StoreTime.milliseconds(now)), .integer(Int64(max(0, limit)))])
                var claimed: [OutboxEvent] = []
                for row in rows {
                    guard row.count == 8, let id = row[0].text else {
                        throw StoreError("sqlite: an event row without an id")
                    }
                    guard let kindText = row[1].text,
                        let kind = LifecycleEvent.Kind(rawValue: kindText), let verification = row[2].text,
                        let channelText = row[3].text, let channel = Channel(rawValue: channelText),
                        let to = row[4].text, let at = row[5].integer, let failures = row[6].integer
                    else {
                        // Written by another version, say, before a rollback: it waits (and keeps its
                        // verification's later events waiting), counted in the backlog, while every
                        // other verification's events go on.
                        try db.query(
                            "UPDATE otp_events SET due_at = ?, failures = failures + 1 WHERE id = ?",
                            [
                                .integer(
                                    StoreTime.milliseconds(now.addingTimeInterval(Self.unreadableEventWait))),
                                .text(id),
                            ])
                        continue
                    }
                    try db.query(
                        "UPDATE otp_events SET due_at = ? WHERE id = ?",
                        [.integer(StoreTime.milliseconds(leaseUntil)), .text(id)])
                    claimed.append(
                        OutboxEvent(
                            event: LifecycleEvent(
                                id: id, kind: kind, verificationID: verification, channel: channel, to: to,
                                at: StoreTime.date(milliseconds: at), ref: row[7].text),
                            failures: Int(failures)))
                }
                return claimed
            }
        }
    }

    /// Marks an event delivered; its row stays until its verification is purged.
    public func eventDelivered(id: String) async throws(StoreError) {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            _ = try db.query("UPDATE otp_events SET delivered = 1 WHERE id = ?", [.text(id)])
        }
    }

    /// Counts a failed delivery and sets the next try, while the event's lease is the one given.
    public func eventFailed(id: String, retryAt: Date, leasedUntil: Date) async throws(StoreError) {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            _ = try db.query(
                "UPDATE otp_events SET failures = failures + 1, due_at = ? "
                    + "WHERE id = ? AND delivered = 0 AND due_at = ?",
                [
                    .integer(StoreTime.milliseconds(retryAt)), .text(id),
                    .integer(StoreTime.milliseconds(leasedUntil)),
                ])
        }
    }

    /// Notes `expired` for pending codes past their lifetime that have none, in one transaction.
    public func noteExpiries(now: Date, limit: Int) async throws(StoreError) -> Int {
        guard let masking = events else { return 0 }
        return try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) -> Int in
                let rows = try db.query(
                    "SELECT id FROM otp_verifications v WHERE v.state = 'pending' AND v.expires_at <= ? "
                        + "AND NOT EXISTS (SELECT 1 FROM otp_events e WHERE e.id = "
                        + "'evt_' || v.id || '.expired.' || v.sends_used) ORDER BY v.expires_at LIMIT ?",
                    [.integer(StoreTime.milliseconds(now)), .integer(Int64(max(0, limit)))])
                var written = 0
                for row in rows {
                    guard let id = row.first?.text, let record = try Self.read(db, id: id) else { continue }
                    try Self.note(
                        db, LifecycleEvent(.expired, of: record, at: record.expiresAt, masking: masking))
                    written += 1
                }
                return written
            }
        }
    }

    /// The events not yet delivered.
    public func undeliveredEventCount() async throws(StoreError) -> Int {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            Int(
                try db.query("SELECT COUNT(*) FROM otp_events WHERE delivered = 0").first?.first?.integer ?? 0
            )
        }
    }

    /// Writes an event to the outbox unless its id is already there.
    static func note(_ db: SQLiteConnection, _ event: LifecycleEvent?) throws(StoreError) {
        guard let event else { return }
        let at = StoreTime.milliseconds(event.at)
        try db.query(
            "INSERT OR IGNORE INTO otp_events (id, verification_id, kind, channel, masked_to, at, due_at, ref) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(event.id), .text(event.verificationID), .text(event.kind.rawValue),
                .text(event.channel.rawValue), .text(event.to), .integer(at), .integer(at),
                event.ref.map { .text($0) } ?? .null,
            ])
    }
}
