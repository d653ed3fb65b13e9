/// What a hot path remembers by key, up to a bound, behind a lock: the verifier's check permits and
/// client addresses, a Redis store's records held for short replies.
///
/// A bound, not a cache policy: at the bound it starts over, and a miss costs what remembering
/// saved (a store read, an HMAC). Entries never go stale by themselves; keep only what never
/// changes for its key, or what carries its own check (a revision).
public final class BoundedMemo<Key: Hashable & Sendable, Item: Sendable>: Sendable {
    private let entries = Locked<[Key: Item]>([:])
    /// How many entries are kept at most.
    public let bound: Int

    /// Creates an empty memo that keeps at most `bound` entries.
    public init(bound: Int) {
        self.bound = max(1, bound)
    }

    /// The item remembered for `key`, or `nil`.
    public subscript(key: Key) -> Item? {
        entries.withLock { $0[key] }
    }

    /// Remembers `item` for `key`; a new key at the bound starts the memo over.
    public func remember(_ item: Item, for key: Key) {
        entries.withLock { entries in
            if entries.count >= bound, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = item
        }
    }

    /// Forgets `key`.
    public func forget(_ key: Key) {
        entries.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// How many entries are remembered.
    public var count: Int {
        entries.withLock { $0.count }
    }
}
