/// A dictionary key whose hash is worked out once, when the key is made.
///
/// A memory-store check looks up a verification by its id and two rate counters by their keys; a
/// `String` key would hash its whole text at each lookup. A check's keys are made once per
/// verification and client address, so each is hashed once. Two keys are equal when their text is.
typealias HashedKey = Hashed<String>

/// A value with its hash worked out once, when it is made.
///
/// A dictionary keyed by it hashes nothing per lookup, and the same hash can pick a shard or a
/// lock first. Two are equal when their values are.
@usableFromInline
struct Hashed<Key: Hashable & Sendable>: Hashable, Sendable, CustomDebugStringConvertible {
    @usableFromInline let key: Key
    /// The value's hash under the process's seed.
    @usableFromInline let keyHash: Int

    @inlinable
    init(_ key: Key) {
        self.key = key
        // The process's seeded hash of the value: keys an attacker chooses do not collide more than
        // they would in a dictionary of the values themselves.
        keyHash = key.hashValue
    }

    // The stored hashes first: a dictionary probing past other keys compares it with each, and
    // keys of different hashes are never equal.
    @inlinable
    static func == (lhs: Hashed, rhs: Hashed) -> Bool { lhs.keyHash == rhs.keyHash && lhs.key == rhs.key }

    @inlinable
    func hash(into hasher: inout Hasher) { hasher.combine(keyHash) }

    /// The hash a dictionary places the key by: the one worked out when the key was made, mixed
    /// with the dictionary's own seed, with no `Hasher` run per lookup.
    ///
    /// `Hashable`'s customisation point for types whose hash is cheaper than feeding a `Hasher`
    /// (underscored: the standard library's own, which its dictionaries call; were a toolchain to
    /// stop calling it, the keys would be hashed through ``hash(into:)``, as correctly and slower).
    /// `keyHash` is already the process's keyed hash of the value, so a dictionary of these keys is
    /// as hard to flood with collisions as a dictionary of the values. The seed only has to order
    /// the same keys differently in two dictionaries (so that copying one into the other does not
    /// cluster); a multiply and a fold of the high half into the low half, which a dictionary's
    /// buckets are taken from, do that.
    @inlinable
    func _rawHashValue(seed: Int) -> Int {
        let mixed = UInt64(truncatingIfNeeded: keyHash ^ seed) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
    }

    /// The value alone, as the descriptions of the values holding a key show it.
    @usableFromInline var debugDescription: String { String(reflecting: key) }
}
