import OTPCore
import Testing

@Suite struct LockedTests {
    final class Tracked: Sendable {}

    struct Refusal: Error, Equatable {}

    @Test("increments from many threads at once all count: no two hold the lock together")
    func exclusive() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<20_000 {
                        counter.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(counter.withLock { $0 } == 160_000)
    }

    @Test("a body that throws leaves its change, passes its error on and gives the lock back")
    func throwingBody() {
        let locked = Locked([1])
        #expect(throws: Refusal.self) {
            try locked.withLock { (values) throws(Refusal) in
                values.append(2)
                throw Refusal()
            }
        }
        // The lock is free again: were it still held, this call would wait forever.
        #expect(locked.withLock { $0 } == [1, 2])
    }

    @Test("the value lives as long as the lock, and goes with it")
    func valueLifetime() {
        weak var weakValue: Tracked?
        do {
            let value = Tracked()
            weakValue = value
            let locked = Locked(value)
            #expect(locked.withLock { $0 } === value)
        }
        #expect(weakValue == nil)
    }
}
