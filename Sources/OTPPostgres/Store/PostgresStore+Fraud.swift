import Foundation
import OTPCore
import OTPEngine

// The pumping guard's counters and blocks: one row per key and time bucket, one row per block key,
// each step in one transaction (the block's row locked while it is judged).

extension PostgresStore {
    /// Adds a tally to its buckets and answers the window's sums and live blocks, in one transaction.
    public func tallyFraud(_ tally: FraudTally, now: Date) async throws(StoreError) -> FraudTotals {
        try await transaction { (db: PostgresConnection) throws(StoreError) in
            var live: [FraudBlockState] = []
            for key in tally.blockKeys {
                if let block = try Self.fraudBlock(db, key: key, locking: false), block.until > now {
                    live.append(block)
                }
            }
            let added =
                !(tally.skipWhenBlocked && !live.isEmpty) && (tally.sends != 0 || tally.approvals != 0)
            if added {
                // In key order, so that two tallies of the same keys take their row locks in one order.
                for key in tally.keys.sorted() {
                    try db.query(
                        "INSERT INTO otp_fraud_counts (key, bucket, sends, approvals, keep_until) "
                            + "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (key, bucket) DO UPDATE SET "
                            + "sends = otp_fraud_counts.sends + excluded.sends, "
                            + "approvals = otp_fraud_counts.approvals + excluded.approvals, "
                            + "keep_until = greatest(otp_fraud_counts.keep_until, excluded.keep_until)",
                        [
                            .text(key), .integer(StoreTime.milliseconds(tally.bucket)),
                            .integer(Int64(tally.sends)), .integer(Int64(tally.approvals)),
                            .integer(StoreTime.milliseconds(tally.keepUntil)),
                        ])
                }
            }
            var counts: [FraudCount] = []
            for key in tally.keys {
                let row = try db.query(
                    "SELECT coalesce(sum(sends), 0)::bigint, coalesce(sum(approvals), 0)::bigint "
                        + "FROM otp_fraud_counts WHERE key = $1 AND bucket >= $2",
                    [.text(key), .integer(StoreTime.milliseconds(tally.windowStart))]
                ).rows.first
                counts.append(
                    FraudCount(
                        key: key, sends: Int(row?.integer(0) ?? 0), approvals: Int(row?.integer(1) ?? 0)))
            }
            return FraudTotals(counts: counts, blocks: live, added: added)
        }
    }

    /// Blocks a key unless a live block holds it, in one transaction.
    public func blockFraud(
        _ request: FraudBlockRequest, now: Date
    ) async throws(StoreError) -> FraudBlockState {
        try await transaction { (db: PostgresConnection) throws(StoreError) in
            // The row is made first if missing, so that the lock below always has a row to hold.
            // An existing row is locked here (`DO UPDATE`, not `DO NOTHING`): a purge deleting it
            // between this statement and the lock would otherwise leave the lock no row, and the
            // block made below would be written nowhere.
            try db.query(
                "INSERT INTO otp_fraud_blocks (key, until, repeats, forget_at) VALUES ($1, 0, 0, 0) "
                    + "ON CONFLICT (key) DO UPDATE SET key = excluded.key", [.text(request.key)])
            let found = try Self.fraudBlock(db, key: request.key, locking: true)
            let previous = found.flatMap { $0.repeats == 0 ? nil : $0 }
            let next = FraudBlockState.next(after: previous, request: request, now: now)
            if next.created {
                try db.query(
                    "UPDATE otp_fraud_blocks SET until = $2, repeats = $3, forget_at = $4 WHERE key = $1",
                    [
                        .text(next.key), .integer(StoreTime.milliseconds(next.until)),
                        .integer(Int64(next.repeats)), .integer(StoreTime.milliseconds(next.forgetAt)),
                    ])
            }
            return next
        }
    }

    /// Each key's sums since a time.
    public func fraudCounts(since: Date) async throws(StoreError) -> [FraudCount] {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try db.query(
                "SELECT key, sum(sends)::bigint, sum(approvals)::bigint FROM otp_fraud_counts "
                    + "WHERE bucket >= $1 GROUP BY key ORDER BY key",
                [.integer(StoreTime.milliseconds(since))]
            ).rows.compactMap { row in
                guard let key = row.text(0) else { return nil }
                return FraudCount(
                    key: key, sends: Int(row.integer(1) ?? 0), approvals: Int(row.integer(2) ?? 0))
            }
        }
    }

    private static func fraudBlock(
        _ db: PostgresConnection, key: String, locking: Bool
    ) throws(StoreError) -> FraudBlockState? {
        guard
            let row = try db.query(
                "SELECT until, repeats, forget_at FROM otp_fraud_blocks WHERE key = $1"
                    + (locking ? " FOR UPDATE" : ""), [.text(key)]
            ).rows.first,
            let until = row.integer(0), let repeats = row.integer(1), let forgetAt = row.integer(2)
        else { return nil }
        return FraudBlockState(
            key: key, until: StoreTime.date(milliseconds: until), repeats: Int(repeats),
            forgetAt: StoreTime.date(milliseconds: forgetAt), created: false)
    }
}
