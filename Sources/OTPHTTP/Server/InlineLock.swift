import Foundation

#if os(Linux)
    import Synchronization
#endif

/// A value behind a lock that costs no allocation where it can: a `Mutex` stored in place on Linux,
/// where the server runs under load (an `NSLock` is two allocations, and the server made two per
/// request); an `NSLock` on Apple platforms before `Mutex` (macOS 15, iOS 18).
struct InlineLock<Value: Sendable>: ~Copyable, @unchecked Sendable {
    #if os(Linux)
        private let mutex: Mutex<Value>

        init(_ value: Value) {
            mutex = Mutex(value)
        }

        /// Runs `body` with the value while holding the lock.
        func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
            mutex.withLock { value in body(&value) }
        }
    #else
        private final class Box: @unchecked Sendable {
            // Guards `value`.
            let lock = NSLock()
            var value: Value

            init(_ value: Value) {
                self.value = value
            }
        }

        private let box: Box

        init(_ value: Value) {
            box = Box(value)
        }

        /// Runs `body` with the value while holding the lock.
        func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
            box.lock.withLock { body(&box.value) }
        }
    #endif
}
