/// What a hot path remembers by key, up to a bound, behind a lock: the verifier's check permits and
/// client addresses, a Redis store's records held for short replies.
///
/// A bound, not a cache policy: at the bound it starts over, and a miss costs what remembering
/// saved (a store read, an HMAC). Entries never go stale by themselves; keep only what never
/// changes for its key, or what carries its own check (a revision).
///
/// With more than one stripe, keys are spread over that many dictionaries by their hash, each
/// behind a lock of its own and bounded by its share of `bound`, starting over on its own: threads
/// looking up different keys then seldom wait for each other. A key is hashed once per call either
/// way.
public final class BoundedMemo<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    private let stripes: [Locked<[Hashed<Key>: Item]>]
    /// How many entries one stripe keeps at most.
    private let stripeBound: Int
    /// How many entries are kept at most.
    public let bound: Int

    /// Creates an empty memo that keeps at most `bound` entries, spread over `stripes` locks (a
    /// power of two; others are rounded down to one).
    public init(bound: Int, stripes: Int = 1) {
        let count = stripes > 0 && stripes & (stripes - 1) == 0 ? stripes : 1
        self.stripes = (0..<count).map { _ in Locked([:]) }
        stripeBound = max(1, bound / count)
        self.bound = stripeBound * count
    }

    private func stripe(_ key: Hashed<Key>) -> Locked<[Hashed<Key>: Item]> {
        stripes[key.keyHash & (stripes.count - 1)]
    }

    /// The item remembered for `key`, or `nil`.
    public subscript(key: Key) -> Item? {
        let hashed = Hashed(key)
        return stripe(hashed).withLock { $0[hashed] }
    }

    /// Remembers `item` for `key`; a new key at the bound starts the memo (or its stripe) over.
    public func remember(_ item: Item, for key: Key) {
        let hashed = Hashed(key)
        let bound = stripeBound
        stripe(hashed).withLock { entries in
            if entries.count >= bound, entries[hashed] == nil { entries.removeAll(keepingCapacity: true) }
            entries[hashed] = item
        }
    }

    /// Forgets `key`.
    public func forget(_ key: Key) {
        let hashed = Hashed(key)
        stripe(hashed).withLock { _ = $0.removeValue(forKey: hashed) }
    }

    /// How many entries are remembered.
    public var count: Int {
        stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.count } }
    }
}
