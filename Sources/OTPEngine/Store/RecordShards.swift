/// A memory store's verifications by id.
typealias RecordShards = IDShards<VerificationRecord>

/// What a memory store keeps per verification id (its records, their delivery attempts), spread
/// over a fixed number of dictionaries.
///
/// One dictionary of a million entries doubles its storage in one step, moving every entry while
/// the store's lock is held: about a hundred milliseconds in which no start or check is answered.
/// Spread over ``shardCount`` dictionaries, each grows on its own, and a growth moves a
/// sixty-fourth of the entries.
struct IDShards<Value> {
    /// How many dictionaries the entries are spread over; a power of two.
    static var shardCount: Int { 64 }

    private var shards = [[HashedKey: Value]](repeating: [:], count: Self.shardCount)

    /// The number of entries held.
    private(set) var count = 0

    /// Which dictionary holds an id: the low bits of its seeded hash.
    static func shard(of id: HashedKey) -> Int {
        id.keyHash & (shardCount - 1)
    }

    /// The entry for an id; setting `nil` removes it.
    subscript(id: String) -> Value? {
        get { self[HashedKey(id)] }
        set { self[HashedKey(id)] = newValue }
    }

    /// The entry for an id whose hash is already worked out; setting `nil` removes it.
    subscript(id: HashedKey) -> Value? {
        get { shards[Self.shard(of: id)][id] }
        set {
            let index = Self.shard(of: id)
            let before = shards[index].count
            shards[index][id] = newValue
            count += shards[index].count - before
        }
    }

    /// Changes the entry for an id in place, with one lookup and no copy of it; `nil`, with `body`
    /// not called, when there is none.
    mutating func update<Result>(_ id: HashedKey, _ body: (inout Value) -> Result) -> Result? {
        let shard = Self.shard(of: id)
        guard let index = shards[shard].index(forKey: id) else { return nil }
        return body(&shards[shard].values[index])
    }

    /// Changes the entry for an id in place, starting from `empty` when there is none.
    mutating func update(
        _ id: HashedKey, default empty: @autoclosure () -> Value, _ body: (inout Value) -> Void
    ) {
        let index = Self.shard(of: id)
        let before = shards[index].count
        body(&shards[index][id, default: empty()])
        count += shards[index].count - before
    }

    /// Every entry, in no particular order.
    var values: [Value] {
        shards.flatMap(\.values)
    }

    /// Keeps only the entries for which `keep` is true.
    mutating func keep(where keep: (Value) -> Bool) {
        count = 0
        for index in shards.indices {
            shards[index] = shards[index].filter { keep($0.value) }
            count += shards[index].count
        }
    }

    /// Keeps only the entries whose id `keep` is true for.
    mutating func keep(ids keep: (HashedKey) -> Bool) {
        count = 0
        for index in shards.indices {
            shards[index] = shards[index].filter { keep($0.key) }
            count += shards[index].count
        }
    }

    /// Forgets every entry.
    mutating func removeAll() {
        shards = [[HashedKey: Value]](repeating: [:], count: Self.shardCount)
        count = 0
    }
}
