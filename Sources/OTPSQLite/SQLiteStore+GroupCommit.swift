import Dispatch
import Foundation
import OTPCore
import OTPEngine

// The store's one connection and its queue: calls that wait together run as one transaction.

extension SQLiteStore {
    /// Runs `body` on the connection's queue and answers once what it wrote is committed.
    ///
    /// Calls that arrive while the queue is busy wait together and then run as one group: one
    /// `BEGIN IMMEDIATE … COMMIT` around them all. A call that fails has the group run again with
    /// a savepoint per call, so it rolls back only its own writes (and a body may run twice;
    /// only its last run is answered). No call is answered before the commit that holds its
    /// writes, and a failed commit fails every call in the group. Under load this turns many
    /// commits, each appending its pages to the WAL, into a few.
    ///
    /// A `durable` call's commit reaches the disk whatever the store's durability: the
    /// authenticator factors' writes, since a used step or recovery code that a power failure gave
    /// back could be used again. It has a transaction of its own, committed at `synchronous=FULL`;
    /// no other call joins it.
    func run<Result: Sendable>(
        durable: Bool = false, _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> Result
    )
        async throws(StoreError) -> Result
    {
        // Under load, the groups turn hundreds of commits a second into a few.
        let outcome: Swift.Result<Result, StoreError> = await withCheckedContinuation { continuation in
            submit(body, durable: durable) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Queues `body` for the connection; `completion` gets its result once the result is committed.
    ///
    /// A `durable` call runs alone, at `synchronous=FULL` (``run(durable:_:)``). Internal for the
    /// tests that hold the queue to make calls wait together.
    func submit<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> Result, durable: Bool = false,
        completion: @escaping @Sendable (Swift.Result<Result, StoreError>) -> Void
    ) {
        let due = ContinuousClock.now.advanced(by: deadline)
        let call = PendingCall(due: due, durable: durable) { (db: SQLiteConnection) -> PendingCall.Ran in
            let result: Swift.Result<Result, StoreError>
            do throws(StoreError) {
                result = .success(try body(db))
            } catch {
                result = .failure(error)
            }
            let failed = if case .failure = result { true } else { false }
            return PendingCall.Ran(failed: failed) { (settled: StoreError?) in
                completion(settled.map { .failure($0) } ?? result)
            }
        } fail: { (error: StoreError) in
            completion(.failure(error))
        }
        let first = pending.withLock { (calls: inout [PendingCall]) -> Bool in
            calls.append(call)
            return calls.count == 1
        }
        if first { queue.async { self.drain() } }
    }

    /// The most calls one transaction holds, so the first call of a long queue is not kept waiting
    /// for the last.
    static let groupLimit = 128

    /// Runs every waiting call, in groups, on `queue`.
    func drain() {
        var calls = pending.withLock { (calls: inout [PendingCall]) -> [PendingCall] in
            defer { calls.removeAll(keepingCapacity: true) }
            return calls
        }
        guard let connection else {
            for call in calls { call.fail(StoreError("sqlite: the store is shut down")) }
            return
        }
        while !calls.isEmpty {
            if calls[0].durable {
                runDurable(calls.removeFirst(), on: connection)
                continue
            }
            // A group ends before a durable call, which has a transaction of its own.
            let group = Array(calls.prefix(Self.groupLimit).prefix { !$0.durable })
            calls.removeFirst(group.count)
            // The last group of a drain takes in the calls that come while it runs.
            runGroup(group, on: connection, joining: calls.isEmpty)
        }
    }

    /// Runs a durable call alone, its commit at `synchronous=FULL`, then sets the store's own
    /// durability back for the calls after it.
    func runDurable(_ call: PendingCall, on connection: SQLiteConnection) {
        let now = ContinuousClock.now
        guard call.due > now else {
            call.fail(StoreError("sqlite: timed out waiting for the store"))
            return
        }
        setBusyTimeout(connection, for: call, at: now)
        guard durability == .normal else {
            call.execute(connection).answer(nil)
            return
        }
        do throws(StoreError) {
            try connection.setSynchronous(.full)
        } catch {
            call.fail(error)
            return
        }
        let ran = call.execute(connection)
        // Should this fail, the connection stays at FULL: slower, never less durable.
        try? connection.setSynchronous(.normal)
        ran.answer(nil)
    }

    /// Bounds the wait for another writer's lock by the call's deadline.
    func setBusyTimeout(
        _ connection: SQLiteConnection, for call: PendingCall, at now: ContinuousClock.Instant
    ) {
        // Only taking the write lock waits for another writer; the oldest call bounds that wait.
        let full = StoreTime.milliseconds(deadline)
        let left = max(1, StoreTime.milliseconds(now.duration(to: call.due)))
        connection.setBusyTimeout(milliseconds: Int32(clamping: left < full - 100 ? left : full))
    }

    /// The calls that came since the drain took its own, up to `limit`, taken from the waiting ones.
    func takeArrivals(upTo limit: Int) -> [PendingCall] {
        guard limit > 0 else { return [] }
        return pending.withLock { (calls: inout [PendingCall]) -> [PendingCall] in
            // A durable call and those after it wait for the next drain: it joins no group.
            let taken = Array(calls.prefix(limit).prefix { !$0.durable })
            calls.removeFirst(taken.count)
            return taken
        }
    }

    /// Runs calls in one transaction (a single call in its own, as it asks), then answers them.
    ///
    /// With `joining`, calls that arrive while the group runs join it before its commit, up to
    /// ``groupLimit`` in all: under load one commit then answers every call that came meanwhile;
    /// without it, each drain's calls have a commit of their own. The group's first calls wait for
    /// the newcomers' statements, and the newcomers wait for no commit of the calls before them.
    func runGroup(_ group: [PendingCall], on connection: SQLiteConnection, joining: Bool = false) {
        let now = ContinuousClock.now
        var live: [PendingCall] = []
        for call in group {
            if call.due <= now {
                call.fail(StoreError("sqlite: timed out waiting for the store"))
            } else {
                live.append(call)
            }
        }
        // A call that came since the drain began makes a lone call a group.
        if joining, live.count == 1 { live += takeArrivals(upTo: Self.groupLimit - 1) }
        guard let first = live.first else { return }
        setBusyTimeout(connection, for: first, at: now)
        guard live.count > 1 else {
            first.execute(connection).answer(nil)
            return
        }
        // First without a savepoint per call: two statements fewer per call. A call that fails,
        // or SQLite ending the transaction, undoes the whole attempt, and the group runs again with
        // the savepoints, so a failure still costs only its own call's writes. Nothing is answered
        // before a commit, so no caller sees the attempt that was undone.
        guard Self.beginGroup(for: live, on: connection) else { return }
        var ran: [PendingCall.Ran] = []
        ran.reserveCapacity(live.count)
        var again: [PendingCall] = []
        again.reserveCapacity(live.count)
        var clean = true
        var calls = live
        var position = 0
        while position < calls.count {
            let call = calls[position]
            position += 1
            if position > 1, call.due <= ContinuousClock.now {
                call.fail(StoreError("sqlite: timed out waiting for the store"))
                continue
            }
            again.append(call)
            guard clean else { continue }
            let outcome = call.execute(connection)
            if outcome.failed || !connection.isInTransaction {
                clean = false
            } else {
                ran.append(outcome)
            }
            // The calls before wait for the newcomers' statements, a few microseconds each.
            if joining, clean, position == calls.count {
                calls += takeArrivals(upTo: Self.groupLimit - calls.count)
            }
        }
        if clean {
            Self.commitGroup(answering: ran, on: connection)
            return
        }
        connection.abandonGroup()
        runGroupWithSavepoints(again, on: connection)
    }

    /// Opens a group's transaction; when it cannot, fails every call of the group and says so.
    static func beginGroup(for calls: [PendingCall], on connection: SQLiteConnection) -> Bool {
        do throws(StoreError) {
            try connection.beginGroup()
            return true
        } catch {
            for call in calls { call.fail(error) }
            return false
        }
    }

    /// Commits a group's transaction, then answers the calls that ran in it: each with `nil`, or
    /// all with the error that lost their writes.
    static func commitGroup(answering ran: [PendingCall.Ran], on connection: SQLiteConnection) {
        do throws(StoreError) {
            try connection.commitGroup()
        } catch {
            for done in ran { done.answer(error) }
            return
        }
        for done in ran { done.answer(nil) }
    }

    /// Runs a group's calls in one transaction, each in a savepoint of its own, so a call that fails
    /// loses only its own writes.
    func runGroupWithSavepoints(_ live: [PendingCall], on connection: SQLiteConnection) {
        guard !live.isEmpty else { return }
        guard Self.beginGroup(for: live, on: connection) else { return }
        var ran: [PendingCall.Ran] = []
        ran.reserveCapacity(live.count)
        for (index, call) in live.enumerated() {
            // A call may reach its deadline while the calls before it run.
            if index > 0, call.due <= ContinuousClock.now {
                call.fail(StoreError("sqlite: timed out waiting for the store"))
                continue
            }
            do throws(StoreError) {
                try connection.openSavepoint()
            } catch {
                call.fail(error)
                continue
            }
            let outcome = call.execute(connection)
            connection.closeSavepoint(rollingBack: outcome.failed)
            ran.append(outcome)
            // Some errors (a full disk, say) make SQLite roll the whole transaction back: the calls
            // before this one lost their writes, so they fail, and the rest start a new group.
            if !connection.isInTransaction {
                let error = StoreError("sqlite: the transaction was rolled back by an error")
                for done in ran { done.answer(error) }
                let rest = Array(live[(index + 1)...])
                if !rest.isEmpty { runGroup(rest, on: connection) }
                return
            }
        }
        Self.commitGroup(answering: ran, on: connection)
    }
}

/// A call waiting for the store's connection.
struct PendingCall {
    /// A call that has run, waiting for its transaction to settle.
    struct Ran {
        /// Whether the call threw, so its savepoint is rolled back.
        let failed: Bool
        /// Answers the caller: `nil` once the writes are committed, or the error that lost them.
        let answer: (StoreError?) -> Void
    }

    let due: ContinuousClock.Instant
    /// Whether it runs alone, committed at `synchronous=FULL` (``SQLiteStore/run(durable:_:)``).
    let durable: Bool
    /// Runs the call's body on the connection.
    let execute: (SQLiteConnection) -> Ran
    /// Answers the caller with an error without running the body.
    let fail: (StoreError) -> Void
}
