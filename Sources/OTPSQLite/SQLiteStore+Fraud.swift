import Foundation
import OTPEngine

// The pumping guard's counters and blocks: one row per key and time bucket, one row per block key,
// each step in one immediate transaction.

extension SQLiteStore {
    /// Adds a tally to its buckets and answers the window's sums and live blocks, in one transaction.
    public func tallyFraud(_ tally: FraudTally, now: Date) async throws(StoreError) -> FraudTotals {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) in try Self.tally(db, tally, now: now) }
        }
    }

    /// Blocks a key unless a live block holds it, in one transaction.
    public func blockFraud(
        _ request: FraudBlockRequest, now: Date
    ) async throws(StoreError) -> FraudBlockState {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) in
                let previous = try Self.block(db, key: request.key)
                let next = FraudBlockState.next(after: previous, request: request, now: now)
                if next.created {
                    try db.query(
                        "INSERT OR REPLACE INTO otp_fraud_blocks (key, until, repeats, forget_at) VALUES (?, ?, ?, ?)",
                        [
                            .text(next.key), .integer(StoreTime.milliseconds(next.until)),
                            .integer(Int64(next.repeats)), .integer(StoreTime.milliseconds(next.forgetAt)),
                        ])
                }
                return next
            }
        }
    }

    /// Each key's sums since a time.
    public func fraudCounts(since: Date) async throws(StoreError) -> [FraudCount] {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.query(
                "SELECT key, sum(sends), sum(approvals) FROM otp_fraud_counts WHERE bucket >= ? "
                    + "GROUP BY key ORDER BY key",
                [.integer(StoreTime.milliseconds(since))]
            )
            .compactMap { row in
                guard row.count == 3, let key = row[0].text else { return nil }
                return FraudCount(
                    key: key, sends: Int(row[1].integer ?? 0), approvals: Int(row[2].integer ?? 0))
            }
        }
    }

    private static func tally(
        _ db: SQLiteConnection, _ tally: FraudTally, now: Date
    ) throws(StoreError)
        -> FraudTotals
    {
        var live: [FraudBlockState] = []
        for key in tally.blockKeys {
            if let block = try block(db, key: key), block.until > now { live.append(block) }
        }
        let added = !(tally.skipWhenBlocked && !live.isEmpty) && (tally.sends != 0 || tally.approvals != 0)
        if added {
            for key in tally.keys {
                try db.query(
                    "INSERT INTO otp_fraud_counts (key, bucket, sends, approvals, keep_until) VALUES (?, ?, ?, ?, ?) "
                        + "ON CONFLICT (key, bucket) DO UPDATE SET sends = sends + excluded.sends, "
                        + "approvals = approvals + excluded.approvals, "
                        + "keep_until = max(keep_until, excluded.keep_until)",
                    [
                        .text(key), .integer(StoreTime.milliseconds(tally.bucket)),
                        .integer(Int64(tally.sends)),
                        .integer(Int64(tally.approvals)), .integer(StoreTime.milliseconds(tally.keepUntil)),
                    ])
            }
        }
        var counts: [FraudCount] = []
        for key in tally.keys {
            let row = try db.query(
                "SELECT coalesce(sum(sends), 0), coalesce(sum(approvals), 0) FROM otp_fraud_counts "
                    + "WHERE key = ? AND bucket >= ?",
                [.text(key), .integer(StoreTime.milliseconds(tally.windowStart))]
            ).first
            counts.append(
                FraudCount(
                    key: key, sends: Int(row?.first?.integer ?? 0), approvals: Int(row?.last?.integer ?? 0)))
        }
        return FraudTotals(counts: counts, blocks: live, added: added)
    }

    private static func block(_ db: SQLiteConnection, key: String) throws(StoreError) -> FraudBlockState? {
        guard
            let row = try db.query(
                "SELECT until, repeats, forget_at FROM otp_fraud_blocks WHERE key = ?", [.text(key)]
            ).first,
            row.count == 3, let until = row[0].integer, let repeats = row[1].integer,
            let forgetAt = row[2].integer
        else { return nil }
        return FraudBlockState(
            key: key, until: StoreTime.date(milliseconds: until), repeats: Int(repeats),
            forgetAt: StoreTime.date(milliseconds: forgetAt), created: false)
    }
}
