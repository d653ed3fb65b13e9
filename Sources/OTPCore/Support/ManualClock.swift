import Foundation

/// A clock that moves only when told to, for tests and previews.
///
/// Sleepers wake, in deadline order, when ``advance(by:)`` moves the clock past
/// their deadline. ``date`` gives the matching wall time, so code that needs both
/// a `Clock` and a `Date` sees one consistent time.
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: the time since it was created.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the clock was created.
        public var offset: Duration

        /// Creates an instant at an offset from the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant a duration later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The duration from this instant to another.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Whether one instant comes before another.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    // Guards `current`, `sleepers` and `nextID`; every access holds it.
    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    private let startDate: Date

    /// Creates a clock whose wall time starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        self.startDate = startDate
    }

    /// The current instant.
    public var now: Instant {
        lock.withLock { current }
    }

    /// The wall time matching ``now``.
    public var date: Date {
        startDate.addingTimeInterval(Self.seconds(now.offset))
    }

    /// The smallest step: none.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int {
        lock.withLock { sleepers.count }
    }

    /// Suspends until the clock reaches `deadline`, or throws when the task is canceled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = lock.withLock {
                    if deadline <= current || Task.isCancelled { return true }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: duration)
            let now = current
            let due = sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due {
            sleeper.continuation.resume()
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
