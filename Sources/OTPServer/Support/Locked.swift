import Foundation

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(CCrypto)
    import CCrypto
#endif

/// A value behind a lock, for the few mutable parts of otherwise immutable server types.
///
/// `Synchronization.Mutex` would do on macOS 15 and iOS 18; the package supports earlier systems.
/// On Linux the lock is glibc's adaptive mutex: a thread that finds it held spins for a while
/// before it sleeps. The sections of the check path are a few hundred nanoseconds long, far
/// shorter than a sleep and a wake-up, so two cores judging checks at once wait for each other
/// briefly instead of handing the lock over through the kernel; a long section (a purge of expired
/// records) still puts the waiters to sleep after the short spin.
public final class Locked<Value>: @unchecked Sendable {
    // Guards `value`; every access holds it.
    #if canImport(Glibc)
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
        private let lock = NSLock()
    #endif
    // Held out of line rather than in a stored `var`: the lock already makes every access
    // exclusive, and a stored property would have each access checked again at run time.
    private let value: UnsafeMutablePointer<Value>

    /// Creates a lock around a value.
    public init(_ value: Value) {
        self.value = UnsafeMutablePointer<Value>.allocate(capacity: 1)
        self.value.initialize(to: value)
        #if canImport(Glibc)
            mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            let status = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        #if canImport(Glibc)
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        #endif
    }

    /// Runs `body` with the value while holding the lock.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        #if canImport(Glibc)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #else
            lock.lock()
            defer { lock.unlock() }
        #endif
        return try body(&value.pointee)
    }
}

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
