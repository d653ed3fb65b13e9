import Foundation
import OTPCore
import OTPEngine

// Delivery attempts and the search by destination: what support staff read.

extension SQLiteStore {
    /// Keeps a delivery attempt when its verification's row is there, answering on the queue.
    public func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>) {
        submit(
            { (db: SQLiteConnection) throws(StoreError) in
                try db.query(
                    "INSERT INTO otp_deliveries (verification_id, at, channel, step, outcome, reason, message_id) "
                        + "SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM otp_verifications WHERE id = ?)",
                    [
                        .text(attempt.verificationID), .integer(StoreTime.milliseconds(attempt.at)),
                        .text(attempt.channel.rawValue), .text(attempt.step.rawValue),
                        .text(attempt.outcome.rawValue), attempt.reason.map { .text($0) } ?? .null,
                        attempt.messageID.map { .text($0) } ?? .null, .text(attempt.verificationID),
                    ])
                return ()
            }, completion: reply)
    }

    /// A verification's delivery attempts, oldest first.
    public func deliveries(id: String) async throws(StoreError) -> [DeliveryAttempt] {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.queryRows(
                "SELECT verification_id, at, channel, step, outcome, reason, message_id FROM otp_deliveries "
                    + "WHERE verification_id = ? ORDER BY seq", [.text(id)]
            ) { (row: SQLiteRow) throws(StoreError) in
                guard let id = row.text(0), let at = row.integer(1),
                    let channel = row.text(2).flatMap(Channel.init(rawValue:)),
                    let step = row.text(3).flatMap(DeliveryAttempt.Step.init(rawValue:)),
                    let outcome = row.text(4).flatMap(DeliveryAttempt.Outcome.init(rawValue:))
                else { throw StoreError("sqlite: malformed delivery row") }
                return DeliveryAttempt(
                    verificationID: id, at: StoreTime.date(milliseconds: at), channel: channel, step: step,
                    outcome: outcome, reason: row.text(5), messageID: row.text(6))
            }
        }
    }

    /// The verifications a query finds, newest first, through the index on the destination.
    public func verifications(
        matching query: VerificationQuery, now: Date
    ) async throws(StoreError)
        -> [VerificationRecord]
    {
        let parameters: [SQLiteValue] = [
            .text(query.destination), .integer(query.since.map(StoreTime.milliseconds) ?? Int64.min),
            .integer(query.after?.createdAtMilliseconds ?? Int64.max), .text(query.after?.id ?? ""),
            .text(query.status?.rawValue ?? ""), .integer(StoreTime.milliseconds(now)),
            .integer(Int64(max(0, query.limit))),
        ]
        return try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.queryRows(SQL.searchVerifications, parameters) { (row: SQLiteRow) throws(StoreError) in
                try Self.record(from: row)
            }
        }
    }
}

extension SQL {
    /// The search by destination, newest first.
    ///
    /// `?1` the destination, `?2` the earliest creation time, `?3` and `?4` the cursor's time and
    /// id (answers come after it), `?5` the status or empty, `?6` now, `?7` the limit. The status is
    /// worked out as ``VerificationRecord/status(at:)`` does.
    static let searchVerifications =
        "SELECT id, channel, destination, code_length, code_hash, state, attempts_left, sends_used, created_at, "
        + "expires_at, resend_available_at, purge_at, lease_token, lease_until, locale, ref, txn "
        + "FROM otp_verifications WHERE destination = ?1 AND created_at >= ?2 "
        + "AND (created_at < ?3 OR (created_at = ?3 AND id < ?4)) "
        + "AND (?5 = '' OR ?5 = CASE WHEN state <> 'pending' THEN state WHEN ?6 >= expires_at THEN 'expired' "
        + "WHEN attempts_left <= 0 THEN 'locked' ELSE 'pending' END) "
        + "ORDER BY created_at DESC, id DESC LIMIT ?7"
}
