import OTPCore
import OTPEngine

/// Notices when a store's calls start failing and when they work again, and says so once each.
///
/// A server owner logs one line per outage, with the first failure's cause, rather than one per
/// request: the first failure after a success is reported, then nothing until the first success,
/// which is reported with the number of calls that failed meanwhile.
final class OutageWatch: Sendable {
    private let report: (@Sendable (String) -> Void)?
    private let state = Locked(State())

    private struct State {
        var failing = false
        var failures = 0
    }

    init(report: (@Sendable (String) -> Void)?) {
        self.report = report
    }

    /// Notes a call's result: a thrown error (lost connection, timeout, refusal) or a reply.
    func note(_ result: Result<RedisValue, StoreError>) {
        guard let report else { return }
        switch result {
        case .failure(let error):
            let first = state.withLock { state -> Bool in
                state.failures += 1
                defer { state.failing = true }
                return !state.failing
            }
            if first {
                let reason =
                    error.reason.hasPrefix("redis: ") ? String(error.reason.dropFirst(7)) : error.reason
                report("redis: the store stopped answering: \(reason); not reported again until it answers")
            }
        case .success:
            let failed = state.withLock { state -> Int? in
                guard state.failing else { return nil }
                defer {
                    state.failing = false
                    state.failures = 0
                }
                return state.failures
            }
            if let failed {
                report("redis: the store answers again, after \(failed) failed call\(failed == 1 ? "" : "s")")
            }
        }
    }
}
