import OTPCore

/// The delivery attempts this process has handed to its store and the store has not yet answered
/// for, by verification.
///
/// A start answers as soon as its code is sent, and its attempt is noted in the store behind the
/// answer, so the start does not wait for a second store step. What reads a verification's attempts
/// (``Verifier/deliveries(id:)``, the support search) and what notes a later attempt of the same
/// verification wait here first: a reader in this process never misses an attempt whose start it
/// answered, and a verification's attempts are noted in the order they were made. Another process
/// sharing the store may read the attempt a few milliseconds after the start's answer.
final class NotesInFlight: Sendable {
    private struct Waiting {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let waiting = Locked<[String: Waiting]>([:])

    /// An attempt of `id` was handed to the store.
    func begin(_ id: String) {
        waiting.withLock { $0[id, default: Waiting()].count += 1 }
    }

    /// The store answered for an attempt of `id`, noted or not; the last one wakes who waits.
    func end(_ id: String) {
        let woken = waiting.withLock { all -> [CheckedContinuation<Void, Never>] in
            guard var entry = all[id] else { return [] }
            entry.count -= 1
            guard entry.count <= 0 else {
                all[id] = entry
                return []
            }
            all[id] = nil
            return entry.waiters
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns once the store has answered for every attempt of `id` handed to it before this call.
    func settled(_ id: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let clear = waiting.withLock { all -> Bool in
                guard all[id] != nil else { return true }
                all[id]?.waiters.append(continuation)
                return false
            }
            if clear { continuation.resume() }
        }
    }

    /// How many verifications have attempts in flight.
    var count: Int { waiting.withLock { $0.count } }
}
