import Foundation

/// A clock that moves only when told to, for tests and previews.
///
/// Sleepers wake, in deadline order, when ``advance(by:)`` moves the clock past
/// their deadline. ``date`` gives the matching wall time, so code that needs both
/// a `Clock` and a `Date` sees one consistent time.
public final class ManualClock: Clock, Sendable {
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

    private struct State {
        var current = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())
    private let startDate: Date

    /// Creates a clock whose wall time starts at `startDate`.
    public init(startDate: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        self.startDate = startDate
    }

    /// The current instant.
    public var now: Instant {
        state.withLock { $0.current }
    }

    /// The wall time matching ``now``.
    public var date: Date {
        startDate.addingTimeInterval(Self.seconds(now.offset))
    }

    /// The smallest step: none.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// Suspends until the clock reaches `deadline`, or throws when the task is canceled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if deadline <= state.current || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
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
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.current = state.current.advanced(by: duration)
            let now = state.current
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
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
