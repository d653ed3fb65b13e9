import OTPCore

/// The delivery attempts this process has handed to its store and the store has not yet answered
/// for, by verification.
///
/// A start answers as soon as its code is sent, and its attempt is noted in the store behind the
/// answer, so the start does not wait for a second store step. What reads a verification's attempts
/// (``Verifier/deliveries(id:)``, the support search) and what notes a later attempt of the same
/// verification wait here first: a reader in this process never misses an attempt whose start it
/// answered, and a verification's attempts are noted in the order they were made. A server that
/// stops waits for all of them before it closes its store. Another process sharing the store may
/// read the attempt a few milliseconds after the start's answer.
final class NotesInFlight: Sendable {
    private struct State {
        /// Attempts in flight and who waits for them, by verification.
        var byVerification: [String: Waiting] = [:]
        /// Who waits for every attempt in flight.
        var everyone: [CheckedContinuation<Void, Never>] = []
    }

    private struct Waiting {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// An attempt of `id` was handed to the store.
    func begin(_ id: String) {
        state.withLock { $0.byVerification[id, default: Waiting()].count += 1 }
    }

    /// The store answered for an attempt of `id`, noted or not; the last one wakes who waits.
    func end(_ id: String) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var entry = state.byVerification[id] else { return [] }
            entry.count -= 1
            guard entry.count <= 0 else {
                state.byVerification[id] = entry
                return []
            }
            state.byVerification[id] = nil
            guard state.byVerification.isEmpty else { return entry.waiters }
            defer { state.everyone = [] }
            return entry.waiters + state.everyone
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once the store has answered for every attempt of `id` handed to it before this call.
    func settled(_ id: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let clear = state.withLock { state -> Bool in
                guard state.byVerification[id] != nil else { return true }
                state.byVerification[id]?.waiters.append(continuation)
                return false
            }
            if clear { continuation.resume() }
        }
    }

    /// Returns once no attempt is in flight: the store has answered for every one handed to it.
    func settledAll() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let clear = state.withLock { state -> Bool in
                guard !state.byVerification.isEmpty else { return true }
                state.everyone.append(continuation)
                return false
            }
            if clear { continuation.resume() }
        }
    }
}
