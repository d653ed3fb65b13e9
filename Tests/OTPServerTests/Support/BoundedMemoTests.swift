import Testing

@testable import OTPServer

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
}
