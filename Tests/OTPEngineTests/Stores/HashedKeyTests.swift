import Foundation
import OTPCore
import Testing

@testable import OTPEngine

/// Keys hashed once: equal by their text, found whichever way they were made, and renamed whole.
@Suite struct HashedKeyTests {
    @Test("keys of one text made apart are equal and hash alike; keys of other texts are not equal")
    func equality() {
        let text = ["vf_", "0123456789abcdefghijklmnopqrstuvw"].joined()
        let first = HashedKey(text)
        let second = HashedKey(String(decoding: Array(text.utf8), as: UTF8.self))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first.keyHash == text.hashValue)
        for other in [text + "x", String(text.dropLast()), text.uppercased(), ""] {
            #expect(HashedKey(other) != first, "\(other)")
        }
        var set: Set<HashedKey> = [first]
        #expect(!set.insert(second).inserted)
        #expect(set.insert(HashedKey(text + "x")).inserted)
        #expect(String(describing: [first]) == String(describing: [text]))
    }

    @Test("any hashable value hashed once: equal by value, placed apart in dictionaries of other seeds")
    func generic() {
        let pair = CheckPair(id: "vf_a", clientAddress: "192.0.2.1")
        let hashed = Hashed(pair)
        #expect(hashed == Hashed(CheckPair(id: "vf_a", clientAddress: "192.0.2.1")))
        #expect(hashed != Hashed(CheckPair(id: "vf_a", clientAddress: "192.0.2.2")))
        #expect(hashed.keyHash == pair.hashValue)
        // The dictionary's seed moves where a key goes, in the low bits buckets are taken from.
        let placements = Set((0..<16).map { hashed._rawHashValue(seed: $0 << 20) & 0xFFFF })
        #expect(placements.count > 8)
        // Many keys in one dictionary, growing as they come, all read back.
        var table: [Hashed<Int>: Int] = [:]
        for value in 0..<5000 { table[Hashed(value << 32)] = value }
        #expect(table.count == 5000)
        #expect((0..<5000).allSatisfy { table[Hashed($0 << 32)] == $0 })
    }

    @Test("a record stored by its id as text is found by its hashed id, and the other way round")
    func recordsEitherWay() {
        var shards = RecordShards()
        shards["vf_a"] = RecordShardsTests.record("vf_a", purgeAt: 60)
        shards[HashedKey("vf_b")] = RecordShardsTests.record("vf_b", purgeAt: 60)
        #expect(shards[HashedKey("vf_a")]?.id == "vf_a")
        #expect(shards["vf_b"]?.id == "vf_b")
        #expect(shards.update(HashedKey("vf_a")) { $0.attemptsLeft } == 5)
        #expect(shards.update(HashedKey("vf_c")) { $0.attemptsLeft } == nil)
        shards[HashedKey("vf_a")] = nil
        #expect(shards["vf_a"] == nil && shards.count == 1)
    }

    @Test("a check whose id is set anew is judged against the verification of the new id")
    func renamedCheck() async throws {
        let store = MemoryStore()
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        let record = RecordShardsTests.record("vf_held", purgeAt: 3_600)
        #expect(try await store.insert(record, claim: nil, now: now) == .inserted)
        var attempt = CheckStep(
            id: "vf_other", candidateHash: [9, 9, 9], permits: [], refundsOnApproval: [])
        #expect(try await store.check(attempt, now: now) == .notFound)
        attempt.id = "vf_held"
        #expect(attempt.id == "vf_held")
        #expect(try await store.check(attempt, now: now) == .incorrect(attemptsLeft: 4))
        #expect(try await store.record(id: "vf_held")?.attemptsLeft == 4)
        attempt.candidateHash = record.codeHash
        guard case .approved = try await store.check(attempt, now: now) else {
            Issue.record("the right code was not approved")
            return
        }
    }
}
