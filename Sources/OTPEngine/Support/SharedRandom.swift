import Foundation
import OTPCore

#if canImport(CCrypto)
    import CCrypto
#endif

/// A random number generator behind a lock, so one generator serves concurrent calls.
///
/// The system generator is read 256 bytes at a time instead of 8 (one `getrandom` call per 32
/// numbers rather than per number); each number is wiped from the buffer as it is handed out. Any
/// other generator, a seeded one in tests say, is called as it is.
struct SharedRandom: Sendable {
    private struct State {
        var base: any RandomNumberGenerator & Sendable
        /// Numbers read ahead from the system, those from `used` on still unused; empty for any
        /// other generator.
        var ahead: [UInt64]
        var used: Int
    }

    private let state: Locked<State>

    init(_ generator: any RandomNumberGenerator & Sendable) {
        let buffered = generator is SystemRandomNumberGenerator
        let ahead = buffered ? [UInt64](repeating: 0, count: 32) : []
        state = Locked(State(base: generator, ahead: ahead, used: ahead.count))
    }

    func withGenerator<Result>(_ body: (inout AnyGenerator) -> Result) -> Result {
        state.withLock { stored in
            // Moved out, so the buffer has one owner and is written in place.
            var wrapped = AnyGenerator(base: stored.base, ahead: stored.ahead, used: stored.used)
            stored.ahead = []
            defer {
                stored.base = wrapped.base
                stored.ahead = wrapped.ahead
                stored.used = wrapped.used
            }
            return body(&wrapped)
        }
    }

    /// A concrete generator over an existential one, reading ahead when it is the system's.
    struct AnyGenerator: RandomNumberGenerator {
        var base: any RandomNumberGenerator & Sendable
        var ahead: [UInt64]
        var used: Int

        mutating func next() -> UInt64 {
            guard !ahead.isEmpty else { return base.next() }
            if used == ahead.count {
                Self.fill(&ahead)
                used = 0
            }
            defer {
                ahead[used] = 0
                used += 1
            }
            return ahead[used]
        }

        /// Fills the buffer from the system in one call, or number by number if that falls short.
        private static func fill(_ words: inout [UInt64]) {
            #if canImport(CCrypto)
                if words.withUnsafeMutableBytes({ otp_system_random($0.baseAddress, $0.count) }) == 1 {
                    return
                }
            #endif
            var system = SystemRandomNumberGenerator()
            for index in words.indices { words[index] = system.next() }
        }
    }
}
