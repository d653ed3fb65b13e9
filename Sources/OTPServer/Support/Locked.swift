import Foundation

/// A value behind a lock, for the few mutable parts of otherwise immutable server types.
///
/// `Synchronization.Mutex` would do on macOS 15 and iOS 18; the package supports earlier systems.
public final class Locked<Value>: @unchecked Sendable {
    // Guards `value`; every access holds it.
    private let lock = NSLock()
    private var value: Value

    /// Creates a lock around a value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// A random number generator behind a lock, so one generator serves concurrent calls.
struct SharedRandom: Sendable {
    private let generator: Locked<any RandomNumberGenerator & Sendable>

    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = Locked(generator)
    }

    func withGenerator<Result>(_ body: (inout AnyGenerator) -> Result) -> Result {
        generator.withLock { stored in
            var wrapped = AnyGenerator(base: stored)
            defer { stored = wrapped.base }
            return body(&wrapped)
        }
    }

    /// A concrete generator over an existential one.
    struct AnyGenerator: RandomNumberGenerator {
        var base: any RandomNumberGenerator & Sendable

        mutating func next() -> UInt64 {
            base.next()
        }
    }
}
