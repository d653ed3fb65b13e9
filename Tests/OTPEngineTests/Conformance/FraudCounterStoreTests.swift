import Foundation
import OTPEngine
import Testing

/// The pumping guard's counter and block rules every store keeps, atomically.
@Suite struct FraudCounterStoreTests {
    typealias T = StoreConformanceTests

    static func store(_ kind: StoreKind) async throws -> any FraudCounterStore {
        try await kind.makeStore()
    }

    /// A tally at `seconds` after the suite's start, in 300-second buckets over a 3600-second window.
    static func tally(
        _ keys: [String], sends: Int = 1, approvals: Int = 0, at seconds: Int64, blockKeys: [String] = [],
        skip: Bool = false
    ) -> FraudTally {
        let now = base + seconds * 1000
        let bucket = now - now % 300_000
        return FraudTally(
            keys: keys, sends: sends, approvals: approvals, bucket: StoreTime.date(milliseconds: bucket),
            windowStart: StoreTime.date(milliseconds: bucket - 11 * 300_000),
            keepUntil: StoreTime.date(milliseconds: bucket + 3_900_000), blockKeys: blockKeys,
            skipWhenBlocked: skip)
    }

    /// The suite's start: a whole number of 300-second buckets since 1970.
    static let base: Int64 = 1_795_000_200_000

    static func time(_ seconds: Int64) -> Date {
        StoreTime.date(milliseconds: base + seconds * 1000)
    }

    @Test(
        "sends and approvals add up per key over the window; older buckets leave the sums",
        arguments: StoreKind.allCases)
    func sums(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        _ = try await store.tallyFraud(Self.tally(["p|a", "r|a"], at: 0), now: Self.time(0))
        _ = try await store.tallyFraud(Self.tally(["p|a", "r|a"], at: 10), now: Self.time(10))
        _ = try await store.tallyFraud(
            Self.tally(["r|a"], sends: 0, approvals: 1, at: 20), now: Self.time(20))
        let read = try await store.tallyFraud(
            Self.tally(["r|a", "p|a", "p|none"], sends: 0, at: 30), now: Self.time(30))
        #expect(
            read.counts == [
                FraudCount(key: "r|a", sends: 2, approvals: 1),
                FraudCount(key: "p|a", sends: 2, approvals: 0),
                FraudCount(key: "p|none", sends: 0, approvals: 0),
            ])
        #expect(read.added == false)
        #expect(read.blocks.isEmpty)
        // An hour later the first buckets are out of the window; a new send counts alone.
        let later = try await Self.store(kind)
        _ = try await later.tallyFraud(Self.tally(["p|b"], at: 0), now: Self.time(0))
        let next = try await later.tallyFraud(Self.tally(["p|b"], at: 3700), now: Self.time(3700))
        #expect(next.counts == [FraudCount(key: "p|b", sends: 1, approvals: 0)])
        #expect(next.added)
        // A read whose window starts earlier (the guard's day-long read) sums the buckets still kept.
        var dayRead = Self.tally(["p|b"], sends: 0, at: 3710)
        dayRead.windowStart = Self.time(0)
        let day = try await later.tallyFraud(dayRead, now: Self.time(3710))
        #expect(day.counts == [FraudCount(key: "p|b", sends: 2, approvals: 0)])
        #expect(day.added == false)
    }

    @Test(
        "a block lasts its length, doubles on each repeat, and is forgotten after its memory",
        arguments: StoreKind.allCases)
    func blocks(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        let request = FraudBlockRequest(key: "p|x", base: .seconds(100), memory: .seconds(1000))
        let first = try await store.blockFraud(request, now: Self.time(0))
        #expect(
            first
                == FraudBlockState(
                    key: "p|x", until: Self.time(100), repeats: 1, forgetAt: Self.time(1100), created: true))
        let held = try await store.blockFraud(request, now: Self.time(50))
        #expect(held.created == false)
        #expect(held.until == Self.time(100))
        #expect(held.repeats == 1)
        let second = try await store.blockFraud(request, now: Self.time(200))
        #expect(
            second
                == FraudBlockState(
                    key: "p|x", until: Self.time(400), repeats: 2, forgetAt: Self.time(1400), created: true))
        // Purged after its memory, the key starts again at one.
        let store2 = try await kind.makeStore()
        let blocks2: any FraudCounterStore = store2
        _ = try await blocks2.blockFraud(request, now: Self.time(0))
        _ = try await store2.purgeExpired(now: Self.time(1100))
        let fresh = try await blocks2.blockFraud(request, now: Self.time(1200))
        #expect(fresh.repeats == 1)
        #expect(fresh.until == Self.time(1300))
        // Past its memory but not yet purged, a block is forgotten all the same.
        let store3 = try await kind.makeStore()
        let blocks3: any FraudCounterStore = store3
        _ = try await blocks3.blockFraud(request, now: Self.time(0))
        let unpurged = try await blocks3.blockFraud(request, now: Self.time(1100))
        #expect(unpurged.repeats == 1)
        #expect(unpurged.until == Self.time(1200))
        #expect(unpurged.created)
    }

    @Test(
        "a live block is answered and, when asked, keeps the tally from counting",
        arguments: StoreKind.allCases)
    func skipping(kind: StoreKind) async throws {
        let store = try await Self.store(kind)
        _ = try await store.blockFraud(
            FraudBlockRequest(key: "b|p", base: .seconds(100), memory: .seconds(100)), now: Self.time(0))
        let skipped = try await store.tallyFraud(
            Self.tally(["p|a"], at: 10, blockKeys: ["b|r", "b|p"], skip: true), now: Self.time(10))
        #expect(skipped.added == false)
        #expect(skipped.counts == [FraudCount(key: "p|a", sends: 0, approvals: 0)])
        #expect(skipped.blocks.map(\.key) == ["b|p"])
        #expect(skipped.blocks.first?.until == Self.time(100))
        let counted = try await store.tallyFraud(
            Self.tally(["p|a"], at: 20, blockKeys: ["b|p"], skip: false), now: Self.time(20))
        #expect(counted.added)
        #expect(counted.counts == [FraudCount(key: "p|a", sends: 1, approvals: 0)])
        // Once the block has ended it is no longer answered, and the tally counts.
        let after = try await store.tallyFraud(
            Self.tally(["p|a"], at: 150, blockKeys: ["b|p"], skip: true), now: Self.time(150))
        #expect(after.added)
        #expect(after.blocks.isEmpty)
        #expect(after.counts == [FraudCount(key: "p|a", sends: 2, approvals: 0)])
    }

    @Test("the insights' sums per key since a time; purged buckets are gone", arguments: StoreKind.allCases)
    func counts(kind: StoreKind) async throws {
        let made = try await kind.makeStore()
        let store: any FraudCounterStore = made
        _ = try await store.tallyFraud(Self.tally(["p|a", "r|a"], at: 0), now: Self.time(0))
        _ = try await store.tallyFraud(
            Self.tally(["p|a", "r|a"], sends: 0, approvals: 1, at: 400), now: Self.time(400))
        _ = try await store.tallyFraud(Self.tally(["p|b"], at: 700), now: Self.time(700))
        #expect(
            try await store.fraudCounts(since: Self.time(0)) == [
                FraudCount(key: "p|a", sends: 1, approvals: 1),
                FraudCount(key: "p|b", sends: 1, approvals: 0),
                FraudCount(key: "r|a", sends: 1, approvals: 1),
            ])
        #expect(
            try await store.fraudCounts(since: Self.time(300)) == [
                FraudCount(key: "p|a", sends: 0, approvals: 1),
                FraudCount(key: "p|b", sends: 1, approvals: 0),
                FraudCount(key: "r|a", sends: 0, approvals: 1),
            ])
        // The first bucket (0–300 s) is kept until 3900 s after its start.
        _ = try await made.purgeExpired(now: Self.time(3900))
        #expect(
            try await store.fraudCounts(since: Self.time(0)) == [
                FraudCount(key: "p|a", sends: 0, approvals: 1),
                FraudCount(key: "p|b", sends: 1, approvals: 0),
                FraudCount(key: "r|a", sends: 0, approvals: 1),
            ])
    }

    @Test(
        "tallies from several handles at once all count, and one block among racing requests",
        arguments: StoreKind.allCases)
    func atomic(kind: StoreKind) async throws {
        let handles = try await kind.makeStores(count: 4).map { $0 as any FraudCounterStore }
        let created = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                let store = handles[index % handles.count]
                group.addTask {
                    _ = try? await store.tallyFraud(Self.tally(["p|c", "r|c"], at: 5), now: Self.time(5))
                    let block = try? await store.blockFraud(
                        FraudBlockRequest(key: "p|c", base: .seconds(60), memory: .seconds(60)),
                        now: Self.time(5))
                    return block?.created == true
                }
            }
            var made = 0
            for await one in group where one { made += 1 }
            return made
        }
        #expect(created == 1)
        let read = try await handles[0].tallyFraud(
            Self.tally(["p|c", "r|c"], sends: 0, at: 6), now: Self.time(6))
        #expect(read.counts.map(\.sends) == [40, 40])
    }
}
