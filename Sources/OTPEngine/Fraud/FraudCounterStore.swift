import Foundation

/// Where the pumping guard's counters and blocks live, shared by every server on the store.
///
/// Three steps, each atomic: ``tallyFraud(_:now:)`` adds to time buckets and answers the window's
/// sums with the live blocks; ``blockFraud(_:now:)`` sets a block unless one holds;
/// ``fraudCounts(since:)`` sums the buckets for the conversion insights. Counter and block keys are
/// opaque to the store (the engine makes them, see ``FraudKey``). The store never reads the clock,
/// and buckets and blocks go when ``VerificationStore/purgeExpired(now:)`` runs.
public protocol FraudCounterStore: Sendable {
    /// Adds a tally's sends and approvals to the bucket of each key and answers, atomically, each
    /// key's sums over the buckets in the window and the live blocks of the tally's block keys.
    ///
    /// When ``FraudTally/skipWhenBlocked`` is set and a live block holds a block key, nothing is
    /// added.
    func tallyFraud(_ tally: FraudTally, now: Date) async throws(StoreError) -> FraudTotals

    /// Blocks a key unless a live block holds it (``FraudBlockState/next(after:request:now:)``),
    /// atomically, and answers the block that holds it.
    func blockFraud(_ request: FraudBlockRequest, now: Date) async throws(StoreError) -> FraudBlockState

    /// Each key's sends and approvals over the buckets that start at or after `since`.
    func fraudCounts(since: Date) async throws(StoreError) -> [FraudCount]
}

/// What one guarded event adds to the counters, and what the guard wants back.
public struct FraudTally: Sendable, Equatable {
    /// The counters to add to and to answer, in the order answered.
    public var keys: [String]
    /// Sends to add to each counter (0 to only read).
    public var sends: Int
    /// Approvals to add to each counter.
    public var approvals: Int
    /// The start of the current bucket: the counters' time slot.
    public var bucket: Date
    /// Buckets starting at or after this time are in the window.
    public var windowStart: Date
    /// When the current bucket may be purged.
    public var keepUntil: Date
    /// The block keys whose live blocks are answered.
    public var blockKeys: [String]
    /// Whether a live block on a block key means nothing is added.
    public var skipWhenBlocked: Bool

    /// Creates a tally.
    public init(
        keys: [String], sends: Int, approvals: Int, bucket: Date, windowStart: Date, keepUntil: Date,
        blockKeys: [String] = [], skipWhenBlocked: Bool = false
    ) {
        self.keys = keys
        self.sends = sends
        self.approvals = approvals
        self.bucket = bucket
        self.windowStart = windowStart
        self.keepUntil = keepUntil
        self.blockKeys = blockKeys
        self.skipWhenBlocked = skipWhenBlocked
    }
}

/// One counter's sums.
public struct FraudCount: Sendable, Hashable {
    /// The counter's key.
    public var key: String
    /// Sends counted.
    public var sends: Int
    /// Approvals counted.
    public var approvals: Int

    /// Creates a count.
    public init(key: String, sends: Int, approvals: Int) {
        self.key = key
        self.sends = sends
        self.approvals = approvals
    }
}

/// A tally's answer: each key's sums over the window, and the live blocks.
public struct FraudTotals: Sendable, Equatable {
    /// The sums, in the tally's key order.
    public var counts: [FraudCount]
    /// The live blocks among the tally's block keys, in their order.
    public var blocks: [FraudBlockState]
    /// Whether the tally's sends and approvals were added (false when a live block skipped them).
    public var added: Bool

    /// Creates totals.
    public init(counts: [FraudCount], blocks: [FraudBlockState], added: Bool) {
        self.counts = counts
        self.blocks = blocks
        self.added = added
    }
}

/// A block the guard asks for.
public struct FraudBlockRequest: Sendable, Equatable {
    /// The key to block.
    public var key: String
    /// The first block's length; each repeat doubles it.
    public var base: Duration
    /// How long the block's repeat count is remembered after it ends.
    public var memory: Duration

    /// Creates a request.
    public init(key: String, base: Duration, memory: Duration) {
        self.key = key
        self.base = base
        self.memory = memory
    }
}

/// A block on a key: until when, and the how-manieth block of that key it is.
public struct FraudBlockState: Sendable, Equatable {
    /// The blocked key.
    public var key: String
    /// When the block ends.
    public var until: Date
    /// 1 for a key's first block, 2 for the next one while the key is remembered, and so on.
    public var repeats: Int
    /// When the key's repeat count is forgotten.
    public var forgetAt: Date
    /// Whether this step made the block (false: a live block already held the key).
    public var created: Bool

    /// Creates a block state.
    public init(key: String, until: Date, repeats: Int, forgetAt: Date, created: Bool) {
        self.key = key
        self.until = until
        self.repeats = repeats
        self.forgetAt = forgetAt
        self.created = created
    }

    /// The longest doubling: the 17th and later repeats last as long as the 17th.
    public static let maxDoublings = 16

    /// The block a request leaves after `previous` (the key's remembered block, if any), at `now`.
    ///
    /// A live previous block (`until` after `now`) stays, with `created` false. Otherwise the
    /// repeat count goes up by one (from 0 when nothing is remembered: a previous block past its
    /// `forgetAt` counts as none, whether or not a purge has removed it yet) and the block lasts
    /// `base × 2^(repeats − 1)` (the exponent at most ``maxDoublings``) from `now`; it is
    /// remembered until `memory` after it ends.
    public static func next(
        after previous: FraudBlockState?, request: FraudBlockRequest, now: Date
    ) -> FraudBlockState {
        if var live = previous, live.until > now {
            live.created = false
            return live
        }
        let remembered = previous.flatMap { $0.forgetAt > now ? $0 : nil }
        let repeats = (remembered?.repeats ?? 0) + 1
        let length = request.base * (1 << min(repeats - 1, maxDoublings))
        let until = StoreTime.truncated(now.adding(length))
        return FraudBlockState(
            key: request.key, until: until, repeats: repeats,
            forgetAt: StoreTime.truncated(until.adding(request.memory)), created: true)
    }
}
