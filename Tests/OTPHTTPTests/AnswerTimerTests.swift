import Foundation
import Testing

@testable import OTPHTTP

/// The timer that answers held connections.
///
/// No test waits for a deadline: actions due in the past run as soon as the thread sees them, and
/// `stop()` runs the rest at once.
@Suite struct AnswerTimerTests {
    /// Actions' names in the order they ran.
    final class Ran: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

        func add(_ name: String) {
            let ready = lock.withLock {
                names.append(name)
                let ready = waiters.filter { $0.0 <= names.count }
                waiters.removeAll { $0.0 <= names.count }
                return ready
            }
            for (_, continuation) in ready { continuation.resume() }
        }

        var all: [String] { lock.withLock { names } }

        func wait(for count: Int) async {
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    if names.count >= count { return true }
                    waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    @Test("actions past their instant run in instant order, those scheduled for one instant in turn")
    func order() async {
        let timer = AnswerTimer()
        let ran = Ran()
        let now = ContinuousClock.now
        // The timer's thread waits in a first action until the others are all scheduled.
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        timer.schedule(at: now - .seconds(3)) {
            entered.signal()
            gate.wait()
        }
        entered.wait()
        timer.schedule(at: now - .seconds(1)) { ran.add("b") }
        timer.schedule(at: now - .seconds(2)) { ran.add("a") }
        timer.schedule(at: now - .seconds(1)) { ran.add("c") }
        gate.signal()
        await ran.wait(for: 3)
        #expect(ran.all == ["a", "b", "c"])
        timer.stop()
    }

    @Test("an action waits for its instant while earlier ones run; stop runs it at once")
    func waitsThenStops() async {
        let timer = AnswerTimer()
        let ran = Ran()
        timer.schedule(at: .now + .seconds(3600)) { ran.add("later") }
        timer.schedule(at: .now - .milliseconds(1)) { ran.add("due") }
        await ran.wait(for: 1)
        #expect(ran.all == ["due"])
        #expect(timer.count == 1)
        timer.stop()
        await ran.wait(for: 2)
        #expect(ran.all == ["due", "later"])
        #expect(timer.count == 0)
    }

    @Test("after stop, an action runs on the caller's thread before schedule returns")
    func afterStop() {
        let timer = AnswerTimer()
        timer.stop()
        let ran = Ran()
        timer.schedule(at: .now + .seconds(3600)) { ran.add("x") }
        #expect(ran.all == ["x"])
    }
}
