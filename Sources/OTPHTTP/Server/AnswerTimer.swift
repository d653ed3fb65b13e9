import Foundation

/// Runs actions at their instants on one thread of its own: how a server answers a suspended
/// connection at a set time (``HTTPReply/at(_:_:)``) without a task, a sleep or a thread per request.
///
/// Actions due at the same instant run in the order they were scheduled. The thread starts with
/// the first action and ends with ``stop()``, after running every action already scheduled.
final class AnswerTimer: @unchecked Sendable {
    private struct Entry {
        let due: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    // Guards `entries`, `started` and `stopped`; the thread waits on it.
    private let condition = NSCondition()
    /// Sorted by `due`; most arrive last, since every check is held for the same floor.
    private var entries: [Entry] = []
    private var started = false
    private var stopped = false
    private let name: String
    /// How late past an instant the thread may wake, to answer several actions in one round.
    static let tolerance: Duration = .milliseconds(1)
    /// The longest the thread sleeps in one wait while actions are scheduled, in seconds.
    static let longestWait = 0.1

    init(name: String = "otp-answer-timer") {
        self.name = name
    }

    /// Runs `action` at `due` (at once on the timer's thread when `due` has passed).
    func schedule(at due: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) {
        condition.lock()
        if stopped {
            condition.unlock()
            action()
            return
        }
        var index = entries.endIndex
        while index > entries.startIndex, entries[index - 1].due > due { index -= 1 }
        entries.insert(Entry(due: due, action: action), at: index)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
        // The thread sleeps until the first instant, or without end while nothing is scheduled: it
        // needs waking only when this action comes first. Every check is held for the same floor,
        // so most actions come last, and scheduling them wakes no thread.
        if index == entries.startIndex { condition.signal() }
        condition.unlock()
    }

    /// Runs whatever is scheduled at once and ends the thread; later actions run on the caller's thread.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// The number of actions waiting.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    private func run() {
        condition.lock()
        while true {
            if entries.isEmpty {
                if stopped { break }
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            let first = entries[0].due
            if first > now, !stopped {
                // Woken a little after the first instant, the thread answers every action due by
                // then in one round: fewer wake-ups, and never an answer before its instant.
                let (seconds, attoseconds) = now.duration(to: first + Self.tolerance).components
                // The wait's deadline is on the wall clock, which can be set back while the thread
                // sleeps; and no later action wakes it. A wait of at most `longestWait` bounds how
                // late such a step can make an answer.
                let wait = min(Double(seconds) + Double(attoseconds) / 1e18, Self.longestWait)
                _ = condition.wait(until: Date().addingTimeInterval(wait))
                continue
            }
            let dueCount = stopped ? entries.count : (entries.firstIndex { $0.due > now } ?? entries.count)
            let due = entries[..<dueCount].map(\.action)
            entries.removeFirst(dueCount)
            condition.unlock()
            for action in due { action() }
            condition.lock()
        }
        condition.unlock()
    }
}
