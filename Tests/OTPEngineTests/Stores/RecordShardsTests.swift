import Foundation
import OTPCore
import OTPTestSupport
import Testing

@testable import OTPEngine

/// The memory store's records, spread over shards, must behave as one dictionary.
@Suite struct RecordShardsTests {
    static func record(_ id: String, purgeAt seconds: Double) -> VerificationRecord {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        return VerificationRecord(
            id: id, channel: .sms, destination: "+15555550100", codeLength: 6, codeHash: [1, 2, 3],
            state: .pending, attemptsLeft: 5, sendsUsed: 1, createdAt: start,
            expiresAt: start.addingTimeInterval(300), resendAvailableAt: nil,
            purgeAt: start.addingTimeInterval(seconds), locale: "en")
    }

    @Test("set, replace, update in place, read, remove and count, against a plain dictionary")
    func likeADictionary() {
        var shards = RecordShards()
        var plain: [String: VerificationRecord] = [:]
        var generator = SeededGenerator(seed: 11)
        for step in 0..<3_000 {
            let id = "ver_\(Int.random(in: 0..<700, using: &generator))"
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                shards[id] = nil
                plain[id] = nil
            case 1:
                // In place: the answer is the body's, and `nil` (body not run) for an id not held.
                let left = shards.update(HashedKey(id)) { record -> Int in
                    record.attemptsLeft -= 1
                    return record.attemptsLeft
                }
                plain[id]?.attemptsLeft -= 1
                #expect(left == plain[id]?.attemptsLeft)
            default:
                let value = Self.record(id, purgeAt: Double(step))
                shards[id] = value
                plain[id] = value
            }
            #expect(shards.count == plain.count)
        }
        for id in plain.keys { #expect(shards[id] == plain[id]) }
        #expect(shards["ver_missing"] == nil)
        #expect(Set(shards.values.map(\.id)) == Set(plain.keys))
        #expect(shards.values.count == plain.count)
    }

    @Test("a list per id (delivery attempts): appended in place from empty, kept by id, counted")
    func listsByID() {
        var lists = IDShards<[Int]>()
        var plain: [String: [Int]] = [:]
        var generator = SeededGenerator(seed: 12)
        for step in 0..<2_000 {
            let id = "ver_\(Int.random(in: 0..<300, using: &generator))"
            lists.update(HashedKey(id), default: []) { $0.append(step) }
            plain[id, default: []].append(step)
            #expect(lists.count == plain.count)
        }
        for (id, list) in plain { #expect(lists[id] == list) }
        lists.keep(ids: { $0.key.hasSuffix("7") })
        plain = plain.filter { $0.key.hasSuffix("7") }
        #expect(lists.count == plain.count)
        #expect(Set(lists.values.map { $0 }) == Set(plain.values.map { $0 }))
        #expect(lists["ver_10"] == nil)
    }

    @Test("keep(where:) keeps exactly the matching records in every shard; removeAll empties")
    func keepAndRemove() {
        var shards = RecordShards()
        for index in 0..<500 { shards["ver_\(index)"] = Self.record("ver_\(index)", purgeAt: Double(index)) }
        shards.keep { $0.purgeAt > Date(timeIntervalSince1970: 1_700_000_000 + 199) }
        #expect(shards.count == 300)
        #expect(shards["ver_199"] == nil)
        #expect(shards["ver_200"] != nil)
        #expect(Set(shards.values.map(\.id)) == Set((200..<500).map { "ver_\($0)" }))
        shards.removeAll()
        #expect(shards.count == 0)
        #expect(shards.values.isEmpty)
        #expect(shards["ver_300"] == nil)
    }

    @Test("ids of one millisecond spread over every shard, none holding more than three times its share")
    func spread() {
        var counts = [Int](repeating: 0, count: RecordShards.shardCount)
        var generator = SeededGenerator(seed: 5)
        // One time part for all: only the random part can spread them.
        let time = Date(timeIntervalSince1970: 1_796_169_600)
        for _ in 0..<64_000 {
            let id = VerificationID.make(at: time, using: &generator)
            counts[RecordShards.shard(of: HashedKey(id))] += 1
        }
        #expect(counts.allSatisfy { $0 > 0 })
        #expect((counts.max() ?? 0) < 3 * 64_000 / RecordShards.shardCount)
        #expect(RecordShards.shard(of: HashedKey("ver_a")) == RecordShards.shard(of: HashedKey("ver_a")))
    }
}
