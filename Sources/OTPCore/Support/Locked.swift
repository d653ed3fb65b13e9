import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A value behind a lock, for the few mutable parts of otherwise immutable server types.
///
/// `Synchronization.Mutex` would do on macOS 15 and iOS 18; the package supports earlier systems.
/// On Linux the lock is glibc's adaptive mutex: a thread that finds it held spins for a while
/// before it sleeps, so threads in short sections wait for each other briefly instead of handing
/// the lock over through the kernel; a long section (a purge of expired records) still puts the
/// waiters to sleep after the short spin.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
    // The sections of the check path are a few hundred nanoseconds long, far shorter than a sleep
    // and a wake-up: two cores judging checks at once spin briefly rather than sleep.
    // `Synchronization.Mutex` is not used on newer systems either: ThreadSanitizer does not see the
    // futex it waits on.

    // Plain counters and flags (`Locked(0)`, `Locked(false)`) use this type too rather than
    // `Synchronization.Atomic`, which needs macOS 15 and iOS 18: the package supports macOS 14 and
    // iOS 17, and none of those counters is in code that is Linux-only or gated on the newer systems.

    // Guards `value`; every access holds it.
    #if canImport(Glibc)
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
        @usableFromInline let lock = NSLock()
    #endif
    // Held out of line rather than in a stored `var`: the lock already makes every access
    // exclusive, and a stored property would have each access checked again at run time.
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// Creates a lock around a value.
    package init(_ value: Value) {
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
    @inlinable
    package func withLock<Result, Failure: Error>(
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
