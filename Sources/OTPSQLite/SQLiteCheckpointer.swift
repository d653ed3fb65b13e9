import Dispatch
import Foundation
import OTPCore
import OTPEngine

/// Checkpoints the WAL on a queue and a connection of its own, when a commit asks
/// (``SQLiteConnection/checkpointAside(with:)``): nothing runs while the store is idle.
///
/// A checkpoint runs once the WAL holds ``SQLiteConnection/walPagesBeforeCheckpointAside`` pages
/// that the last one did not copy. Each checkpoint syncs the WAL and the database, and copies a
/// page once however many commits wrote it, so a checkpoint per commit past the threshold would
/// sync far more often for the same pages. Past ``SQLiteConnection/walPagesBeforeCatchingUp`` every
/// commit asks again, so that the commit that checkpoints itself, to let the WAL start over, finds
/// little left to copy.
final class SQLiteCheckpointer: @unchecked Sendable {
    private let path: String
    private let queue = DispatchQueue(label: "otp.sqlite-checkpoint")
    // `connection` and `stopped` are used on `queue` only; the rest is in `state`.
    private var connection: SQLiteConnection?
    private var stopped = false
    private let state = Locked(State())

    private struct State {
        /// Whether a checkpoint is asked for and has not run yet.
        var requested = false
        /// How many of the WAL's pages the last checkpoint left in the database.
        var copied: Int32 = 0
        /// How many checkpoints have run.
        var runs = 0
    }

    init(path: String) {
        self.path = path
    }

    /// Asks for one checkpoint soon, when the WAL (of `walPages` pages) holds enough that the last
    /// one did not copy; asks made while one is waiting add nothing.
    func request(walPages: Int32) {
        // Under steady writes, asking at every commit past the threshold ran hundreds of small
        // checkpoints a second.
        let run = state.withLock { state in
            // A WAL shorter than what was copied has started over from its beginning.
            if walPages < state.copied { state.copied = 0 }
            let enough =
                walPages - state.copied >= SQLiteConnection.walPagesBeforeCheckpointAside
                || walPages >= SQLiteConnection.walPagesBeforeCatchingUp
            guard !state.requested, enough else { return false }
            state.requested = true
            return true
        }
        guard run else { return }
        queue.async { [self] in
            guard !stopped else { return state.withLock { $0.requested = false } }
            if connection == nil { connection = try? SQLiteConnection(path: path, synchronous: .normal) }
            let done = connection?.checkpoint()
            state.withLock { state in
                state.requested = false
                state.runs += 1
                if let done { state.copied = done }
            }
        }
    }

    /// Once every asked checkpoint has run: how many have, and how many WAL pages the last one left
    /// in the database. (For the tests.)
    func settled() -> (runs: Int, copied: Int32) {
        queue.sync {}
        return state.withLock { ($0.runs, $0.copied) }
    }

    /// Closes the checkpointer's connection once a checkpoint under way is done; later asks do nothing.
    func stop() {
        queue.sync {
            stopped = true
            connection?.close()
            connection = nil
        }
    }
}
