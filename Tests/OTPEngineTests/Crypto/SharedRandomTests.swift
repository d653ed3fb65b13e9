import OTPTestSupport
import Testing

@testable import OTPEngine

/// The engine's one generator: the system's read ahead and wiped as used; any other called as is.
@Suite struct SharedRandomTests {
    @Test("a seeded generator gives its own sequence, call after call, with nothing read ahead")
    func seededAsIs() {
        let shared = SharedRandom(SeededGenerator(seed: 42))
        var direct = SeededGenerator(seed: 42)
        var drawn: [UInt64] = []
        for _ in 0..<5 {
            drawn += shared.withGenerator { generator in
                #expect(generator.ahead.isEmpty)
                return (0..<7).map { _ in generator.next() }
            }
        }
        #expect(drawn == (0..<35).map { _ in direct.next() })
    }

    @Test("the system generator: numbers across many refills all differ, and each is wiped once given")
    func systemReadAhead() {
        let shared = SharedRandom(SystemRandomNumberGenerator())
        var drawn: [UInt64] = []
        for round in 0..<20 {
            shared.withGenerator { generator in
                for _ in 0..<(round % 7 + 1) * 3 {
                    drawn.append(generator.next())
                    #expect(generator.ahead.count == 32)
                    #expect(
                        generator.ahead[..<generator.used].allSatisfy { $0 == 0 }, "given numbers are wiped")
                }
            }
        }
        #expect(drawn.count > 64, "more than two buffers' worth")
        #expect(Set(drawn).count == drawn.count)
        #expect(!drawn.contains(0))
    }
}
