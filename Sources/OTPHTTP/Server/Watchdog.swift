import Foundation

/// A thread of its own that has the core cut off late connections every `tick`, until stopped.
///
/// Not a task: a cooperative pool busy with handlers' work would let a late connection live on.
final class Watchdog: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var stopped = false

    init(core: ServerCore, tick: Duration) {
        let seconds = tick / .seconds(1)
        let thread = Thread { [self] in run(core: core, every: seconds) }
        thread.name = "otp-http-watchdog"
        thread.start()
    }

    /// Wakes the thread and ends it; the core is not called after this returns.
    func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func run(core: ServerCore, every seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            if stopped { break }
            core.cutLateConnections()
        }
    }
}
