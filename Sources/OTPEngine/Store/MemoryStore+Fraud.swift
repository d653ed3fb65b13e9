import Foundation

extension MemoryStore {
    /// Adds a tally to its buckets and answers the window's sums and live blocks, under the lock.
    public func tallyFraud(_ tally: FraudTally, now: Date) throws(StoreError) -> FraudTotals {
        try requireOpen()
        return fraud.withLock { $0.tally(tally, now: now) }
    }

    /// Blocks a key unless a live block holds it, under the lock.
    public func blockFraud(_ request: FraudBlockRequest, now: Date) throws(StoreError) -> FraudBlockState {
        try requireOpen()
        return fraud.withLock { $0.block(request, now: now) }
    }

    /// Each key's sums since a time.
    public func fraudCounts(since: Date) throws(StoreError) -> [FraudCount] {
        try requireOpen()
        return fraud.withLock { $0.counts(since: since) }
    }
}

/// The pumping guard's buckets and blocks, in memory: the reference for every store.
struct FraudCounters {
    /// One time slot of one counter.
    struct Bucket {
        var sends = 0
        var approvals = 0
        var keepUntil: Int64 = 0
    }

    /// Buckets by counter key, then by the bucket's start in milliseconds.
    var buckets: [String: [Int64: Bucket]] = [:]
    /// Blocks by key, live or remembered.
    var blocks: [String: FraudBlockState] = [:]

    /// Adds a tally unless a live block skips it, then answers the sums and the live blocks.
    mutating func tally(_ tally: FraudTally, now: Date) -> FraudTotals {
        let live = tally.blockKeys.compactMap { key in blocks[key].flatMap { $0.until > now ? $0 : nil } }
        let added = !(tally.skipWhenBlocked && !live.isEmpty) && (tally.sends != 0 || tally.approvals != 0)
        let bucket = StoreTime.milliseconds(tally.bucket)
        if added {
            for key in tally.keys {
                var slot = buckets[key, default: [:]][bucket, default: Bucket()]
                slot.sends += tally.sends
                slot.approvals += tally.approvals
                slot.keepUntil = max(slot.keepUntil, StoreTime.milliseconds(tally.keepUntil))
                buckets[key, default: [:]][bucket] = slot
            }
        }
        let start = StoreTime.milliseconds(tally.windowStart)
        let counts = tally.keys.map { key in sum(key, from: start) }
        return FraudTotals(counts: counts, blocks: live, added: added)
    }

    /// A key's sums over the buckets starting at or after `start`.
    private func sum(_ key: String, from start: Int64) -> FraudCount {
        var count = FraudCount(key: key, sends: 0, approvals: 0)
        for (time, slot) in buckets[key] ?? [:] where time >= start {
            count.sends += slot.sends
            count.approvals += slot.approvals
        }
        return count
    }

    /// Blocks a key by ``FraudBlockState/next(after:request:now:)``.
    mutating func block(_ request: FraudBlockRequest, now: Date) -> FraudBlockState {
        let next = FraudBlockState.next(after: blocks[request.key], request: request, now: now)
        if next.created { blocks[request.key] = next }
        return next
    }

    /// Every key's sums since a time, in key order.
    func counts(since: Date) -> [FraudCount] {
        let start = StoreTime.milliseconds(since)
        return buckets.keys.sorted().map { sum($0, from: start) }.filter { $0.sends > 0 || $0.approvals > 0 }
    }

    /// Drops buckets and remembered blocks past their time.
    mutating func purge(now: Date) {
        let nowMilliseconds = StoreTime.milliseconds(now)
        for key in Array(buckets.keys) {
            let kept = buckets[key]?.filter { $0.value.keepUntil > nowMilliseconds } ?? [:]
            buckets[key] = kept.isEmpty ? nil : kept
        }
        blocks = blocks.filter { $0.value.forgetAt > now }
    }
}
