import Foundation
import OTPCore
import OTPEngine

// Delivery attempts and the search by destination: what support staff read.

extension PostgresStore {
    /// Keeps a delivery attempt when its verification's row is there, in one statement, answering
    /// on the connection's queue.
    public func noteDelivery(_ attempt: DeliveryAttempt, reply: @escaping StoreReply<Void>) {
        let parameters: [PostgresValue] = [
            .text(attempt.verificationID), .integer(StoreTime.milliseconds(attempt.at)),
            .text(attempt.channel.rawValue), .text(attempt.step.rawValue), .text(attempt.outcome.rawValue),
            .text(attempt.reason), .text(attempt.messageID),
        ]
        pool.submit(
            { (db: PostgresConnection) throws(StoreError) in
                try db.open()
                try db.query(PostgresSQL.noteDelivery, parameters)
                return ()
            }, completion: reply)
    }

    /// A verification's delivery attempts, oldest first.
    public func deliveries(id: String) async throws(StoreError) -> [DeliveryAttempt] {
        let result = try await statement(PostgresSQL.readDeliveries, [.text(id)])
        return try result.rows.map { (row: PostgresRow) throws(StoreError) -> DeliveryAttempt in
            guard let id = row.text(0), let at = row.integer(1),
                let channel = row.text(2).flatMap(Channel.init(rawValue:)),
                let step = row.text(3).flatMap(DeliveryAttempt.Step.init(rawValue:)),
                let outcome = row.text(4).flatMap(DeliveryAttempt.Outcome.init(rawValue:))
            else { throw StoreError("postgres: malformed delivery row") }
            return DeliveryAttempt(
                verificationID: id, at: StoreTime.date(milliseconds: at), channel: channel, step: step,
                outcome: outcome, reason: row.text(5), messageID: row.text(6))
        }
    }

    /// The verifications a query finds, newest first, through the index on the destination.
    public func verifications(
        matching query: VerificationQuery, now: Date
    ) async throws(StoreError)
        -> [VerificationRecord]
    {
        let parameters: [PostgresValue] = [
            .text(query.destination), .integer(query.since.map(StoreTime.milliseconds) ?? Int64.min),
            .integer(query.after?.createdAtMilliseconds ?? Int64.max), .text(query.after?.id ?? ""),
            .text(query.status?.rawValue ?? ""), .integer(StoreTime.milliseconds(now)),
            .integer(Int64(max(0, query.limit))),
        ]
        let result = try await statement(PostgresSQL.searchVerifications, parameters)
        return try result.rows.map { (row: PostgresRow) throws(StoreError) in try Self.record(from: row) }
    }
}

extension PostgresSQL {
    static let noteDelivery =
        "INSERT INTO otp_deliveries (verification_id, at, channel, step, outcome, reason, message_id) "
        + "SELECT $1::text, $2::bigint, $3::text, $4::text, $5::text, $6::text, $7::text "
        + "WHERE EXISTS (SELECT 1 FROM otp_verifications WHERE id = $1::text)"
    static let readDeliveries =
        "SELECT verification_id, at, channel, step, outcome, reason, message_id FROM otp_deliveries "
        + "WHERE verification_id = $1::text ORDER BY seq"
    /// The search by destination, newest first.
    ///
    /// `$1` the destination, `$2` the earliest creation time, `$3` and `$4` the cursor's time and
    /// id (answers come after it), `$5` the status or empty, `$6` now, `$7` the limit. The status is
    /// worked out as `VerificationRecord.status(at:)` does; ids compare byte by byte
    /// (`COLLATE "C"`), as the other stores compare them.
    static let searchVerifications =
        "SELECT \(verificationColumns) FROM otp_verifications "
        + "WHERE destination = $1::text AND created_at >= $2::bigint "
        + "AND (created_at < $3::bigint OR (created_at = $3::bigint AND id COLLATE \"C\" < $4::text)) "
        + "AND ($5::text = '' OR $5::text = CASE WHEN state <> 'pending' THEN state "
        + "WHEN $6::bigint >= expires_at THEN 'expired' WHEN attempts_left <= 0 THEN 'locked' "
        + "ELSE 'pending' END) "
        + "ORDER BY created_at DESC, id COLLATE \"C\" DESC LIMIT $7::bigint"
}
