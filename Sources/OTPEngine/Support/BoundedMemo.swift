import OTPCore

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
    // The lookups are inlinable so that a memo used from another module (the phone number
    // parser's) is specialized there: run through generic code, remembering a number's grouping
    // cost a start about 2 µs of metadata lookups and unspecialized dictionary calls.
    @usableFromInline let stripes: [Locked<[Hashed<Key>: Item]>]
    /// How many entries one stripe keeps at most.
    @usableFromInline let stripeBound: Int
    /// How many entries are kept at most: the asked bound, rounded to a multiple of the stripes.
    public let bound: Int

    /// Creates an empty memo that keeps about `bound` entries, spread over `stripes` locks.
    ///
    /// The stripe count is rounded down to a power of two (at least one); each stripe keeps
    /// `bound / stripes` entries, and at least one, so ``bound`` is `bound` rounded to a multiple of
    /// the stripe count.
    public init(bound: Int, stripes: Int = 1) {
        var count = 1
        while count * 2 <= stripes { count *= 2 }
        self.stripes = (0..<count).map { _ in Locked([:]) }
        stripeBound = max(1, bound / count)
        self.bound = stripeBound * count
    }

    @inlinable
    func stripe(_ key: Hashed<Key>) -> Locked<[Hashed<Key>: Item]> {
        stripes[key.keyHash & (stripes.count - 1)]
    }

    /// The item remembered for `key`, or `nil`.
    @inlinable
    public subscript(key: Key) -> Item? {
        let hashed = Hashed(key)
        return stripe(hashed).withLock { $0[hashed] }
    }

    /// Remembers `item` for `key`; a new key at the bound starts the memo (or its stripe) over.
    @inlinable
    public func remember(_ item: Item, for key: Key) {
        let hashed = Hashed(key)
        let bound = stripeBound
        stripe(hashed).withLock { entries in
            if entries.count >= bound, entries[hashed] == nil { entries.removeAll(keepingCapacity: true) }
            entries[hashed] = item
        }
    }

    /// Forgets `key`.
    @inlinable
    public func forget(_ key: Key) {
        let hashed = Hashed(key)
        stripe(hashed).withLock { _ = $0.removeValue(forKey: hashed) }
    }

    /// How many entries are remembered.
    public var count: Int {
        stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.count } }
    }
}
