/// A dictionary key whose hash is worked out once, when the key is made.
///
/// A memory-store check looks up a verification by its id and two rate counters by their keys, and
/// each lookup hashed the whole text again. A check's keys are made once per verification and
/// client address, so each is now hashed once. Two keys are equal when their text is.
struct HashedKey: Hashable, Sendable, CustomDebugStringConvertible {
    let key: String
    /// The text's hash under the process's seed.
    let keyHash: Int

    init(_ key: String) {
        self.key = key
        // The process's seeded hash of the text: keys an attacker chooses do not collide more than
        // they would in a dictionary of strings.
        keyHash = key.hashValue
    }

    static func == (lhs: HashedKey, rhs: HashedKey) -> Bool { lhs.key == rhs.key }

    func hash(into hasher: inout Hasher) { hasher.combine(keyHash) }

    /// The hash a dictionary places the key by: the one worked out when the key was made, mixed
    /// with the dictionary's own seed, with no `Hasher` run per lookup.
    ///
    /// `Hashable`'s customisation point for types whose hash is cheaper than feeding a `Hasher`;
    /// the standard library's integers implement it the same way. `keyHash` is already the
    /// process's seeded hash of the text, so this keeps a dictionary of keys as hard to flood
    /// with collisions as a dictionary of strings.
    func _rawHashValue(seed: Int) -> Int {
        keyHash._rawHashValue(seed: seed)
    }

    /// The text alone, as the descriptions of the values holding a key show it.
    var debugDescription: String { key.debugDescription }
}
