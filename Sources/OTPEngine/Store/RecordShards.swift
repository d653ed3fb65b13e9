/// A memory store's verifications by id, spread over a fixed number of dictionaries.
///
/// One dictionary of a million records doubles its storage in one step, moving every record while
/// the store's lock is held: about a hundred milliseconds in which no start or check is answered.
/// Spread over ``shardCount`` dictionaries, each grows on its own, and a growth moves a
/// sixty-fourth of the records.
struct RecordShards {
    /// How many dictionaries the records are spread over; a power of two.
    static let shardCount = 64

    private var shards = [[HashedKey: VerificationRecord]](repeating: [:], count: Self.shardCount)

    /// The number of records held.
    private(set) var count = 0

    /// Which dictionary holds an id: the low bits of its seeded hash.
    static func shard(of id: HashedKey) -> Int {
        id.keyHash & (shardCount - 1)
    }

    /// The record with an id; setting `nil` removes it.
    subscript(id: String) -> VerificationRecord? {
        get { self[HashedKey(id)] }
        set { self[HashedKey(id)] = newValue }
    }

    /// The record with an id whose hash is already worked out; setting `nil` removes it.
    subscript(id: HashedKey) -> VerificationRecord? {
        get { shards[Self.shard(of: id)][id] }
        set {
            let index = Self.shard(of: id)
            let before = shards[index].count
            shards[index][id] = newValue
            count += shards[index].count - before
        }
    }

    /// Changes the record with an id in place, with one lookup and no copy of the record;
    /// `nil`, with `body` not called, when there is none.
    mutating func update<Result>(_ id: HashedKey, _ body: (inout VerificationRecord) -> Result) -> Result? {
        let shard = Self.shard(of: id)
        guard let index = shards[shard].index(forKey: id) else { return nil }
        return body(&shards[shard].values[index])
    }

    /// Every record, in no particular order.
    var values: [VerificationRecord] {
        shards.flatMap(\.values)
    }

    /// Keeps only the records for which `keep` is true.
    mutating func keep(where keep: (VerificationRecord) -> Bool) {
        count = 0
        for index in shards.indices {
            shards[index] = shards[index].filter { keep($0.value) }
            count += shards[index].count
        }
    }

    /// Forgets every record.
    mutating func removeAll() {
        shards = [[HashedKey: VerificationRecord]](repeating: [:], count: Self.shardCount)
        count = 0
    }
}
