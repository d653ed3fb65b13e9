import Testing

@testable import OTPEngine

/// What hot paths remember by key, up to a bound.
@Suite struct BoundedMemoTests {
    @Test("remembered items read back; a key remembered again takes the new item; forgotten keys read nil")
    func remembers() {
        let memo = BoundedMemo<String, Int>(bound: 3)
        memo.remember(1, for: "a")
        memo.remember(2, for: "b")
        memo.remember(20, for: "b")
        #expect(memo["a"] == 1)
        #expect(memo["b"] == 20)
        #expect(memo["c"] == nil)
        memo.forget("a")
        #expect(memo["a"] == nil)
        #expect(memo.count == 1)
    }

    @Test("at the bound a new key starts the memo over, and a known key does not")
    func bound() {
        let memo = BoundedMemo<Int, Int>(bound: 3)
        for key in 0..<3 { memo.remember(key, for: key) }
        memo.remember(10, for: 1)
        #expect(memo.count == 3)
        #expect(memo[0] == 0 && memo[1] == 10 && memo[2] == 2)
        memo.remember(3, for: 3)
        #expect(memo.count == 1)
        #expect(memo[3] == 3)
        #expect(memo[0] == nil)
        #expect(BoundedMemo<Int, Int>(bound: 0).bound == 1)
    }

    @Test("striped: each key reads back from its own stripe, and a full stripe starts over alone")
    func striped() {
        let memo = BoundedMemo<Int, Int>(bound: 16, stripes: 4)
        #expect(memo.bound == 16)
        for key in 0..<200 { memo.remember(key * 10, for: key) }
        // Each stripe holds at most its share; the last key remembered is always there.
        #expect(memo.count <= 16)
        #expect(memo.count >= 4)
        #expect(memo[199] == 1990)
        // Keys in other stripes are not dropped when one stripe starts over.
        let kept = (0..<200).filter { memo[$0] != nil }
        #expect(kept.count == memo.count)
        for key in kept { #expect(memo[key] == key * 10) }
        memo.forget(199)
        #expect(memo[199] == nil)
        #expect(memo.count == kept.count - 1)
    }

    @Test("a stripe count is rounded down to a power of two; the bound is shared out whole")
    func stripeCounts() {
        #expect(BoundedMemo<Int, Int>(bound: 10, stripes: 3).bound == 10)  // 2 stripes of 5
        #expect(BoundedMemo<Int, Int>(bound: 10, stripes: 6).bound == 8)  // 4 stripes of 2
        #expect(BoundedMemo<Int, Int>(bound: 10, stripes: 0).bound == 10)
        #expect(BoundedMemo<Int, Int>(bound: 10, stripes: 4).bound == 8)
        #expect(BoundedMemo<Int, Int>(bound: 2, stripes: 4).bound == 4)
        // With one stripe, the whole bound is one dictionary's, as before.
        let single = BoundedMemo<Int, Int>(bound: 3, stripes: 1)
        for key in 0..<3 { single.remember(key, for: key) }
        #expect(single.count == 3)
        single.remember(3, for: 3)
        #expect(single.count == 1)
    }

    @Test("striped: remembering, forgetting and reading from many threads at once keep every stripe whole")
    func stripedConcurrent() async {
        let memo = BoundedMemo<String, Int>(bound: 256, stripes: 16)
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<8 {
                group.addTask {
                    for round in 0..<4000 {
                        // Overlapping keys: every caller writes and forgets keys the others read.
                        let key = "key-\((round * 7 + caller) % 600)"
                        switch round % 3 {
                        case 0: memo.remember(round, for: key)
                        case 1: memo.forget(key)
                        default: _ = memo[key]
                        }
                    }
                }
            }
        }
        #expect(memo.count <= memo.bound)
        // Each stripe still answers as a dictionary: what is remembered now reads back.
        for key in 0..<600 { memo.remember(key, for: "key-\(key)") }
        #expect(memo.count <= memo.bound)
        #expect(memo["key-599"] == 599)
    }
}
