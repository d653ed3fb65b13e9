import Dispatch
import Foundation
import OTPCore
import OTPEngine

/// The embedded store: one SQLite file, shared safely by any number of connections and processes.
///
/// The database runs in WAL mode; every read-modify-write is one `BEGIN IMMEDIATE`
/// transaction running the rules of ``VerificationRecord``; statements are prepared once.
/// Each store owns one connection, used from its own serial queue so a busy wait never
/// blocks Swift's cooperative threads or the server's HTTP threads. Calls that wait for the queue
/// together share one transaction (a group commit), and none is answered before that transaction
/// commits; when one fails, the group runs again with a savepoint per call, so the failure costs
/// only its own writes. An authenticator factor's write joins no group: it commits alone, at
/// `synchronous=FULL` whatever the ``Durability``. A start, a check and a read answer their ``StoreReply`` on the
/// queue once committed: the queue answers the server's request itself, with no task. (Checks are
/// not judged on the HTTP threads, as the memory store judges them: a thread waiting for the queue
/// cannot serve its other connections.) Expired rows go when ``purgeExpired(now:)`` runs;
/// ``shutdown()`` closes the database.
public final class SQLiteStore: VerificationStore, @unchecked Sendable {
    /// How hard each commit waits for the disk.
    public enum Durability: Sendable {
        /// `synchronous=NORMAL`: in WAL mode a commit survives a crash of the process, and a
        /// power failure may lose the last commits (an attempt taken just before could be given back).
        /// An authenticator factor's writes commit at `FULL` all the same: a step or recovery code
        /// used just before a power failure stays used.
        case normal
        // Measured about ten times slower than `normal`.
        /// `synchronous=FULL`: every commit reaches the disk before it returns.
        case full
    }

    // The connection is used and released only on `queue`, which is serial: that is what makes this
    // type Sendable. `nil` once the store is shut down.
    var connection: SQLiteConnection?
    // Answering on this queue measured 14,500 checks a second, against 9,300 when the HTTP threads
    // judged checks and waited for it.
    let queue: DispatchQueue
    /// Calls waiting for `queue`; the call that finds it empty schedules the drain that runs them all.
    let pending = Locked<[PendingCall]>([])
    let deadline: Duration
    /// How hard each commit waits for the disk; a durable call's commit waits as `full` does whatever this is.
    let durability: Durability
    /// Copies the WAL back into the database beside the store's queue, when a commit asks.
    let checkpointer: SQLiteCheckpointer
    /// Whether state changes write ``LifecycleEvent``s to the `otp_events` outbox.
    let recordsEvents: Bool
    /// How those events mask their destinations; `nil` when the store records none.
    let events: DestinationMasking?

    /// Opens (creating when needed) the database at `path` and its tables.
    ///
    /// - Parameters:
    ///   - path: the database file; created owner-only (0600), as are its WAL and shared-memory files.
    ///   - durability: how hard each commit waits for the disk.
    ///   - deadline: how long one call may take in all, the wait for the store's queue and for
    ///     another writer's lock included; past it the call throws and the server answers 503. Calls
    ///     queued behind a held lock each fail at their own deadline, so waits never stack.
    ///   - recordsEvents: whether state changes write ``LifecycleEvent``s to the outbox table, in
    ///     the same transaction as the change.
    ///   - eventMasking: how those events mask their destinations.
    ///   - pendingMigrations: whether a schema older than this version needs is brought up to date
    ///     (each step in one transaction) or refused. A new, empty database is always given the
    ///     current schema; one newer than this version knows is always refused.
    /// - Throws: `StoreError` when the file cannot be opened or its tables made, or when the schema
    ///   is refused (its ``StoreError/underlying`` error is then a ``SchemaMismatch``).
    public init(
        path: String, durability: Durability = .normal, deadline: Duration = .seconds(2),
        recordsEvents: Bool = false, eventMasking: DestinationMasking = .plain,
        pendingMigrations: PendingMigrations = .apply
    ) throws(StoreError) {
        let connection = try SQLiteConnection(path: path, synchronous: durability)
        self.recordsEvents = recordsEvents
        events = recordsEvents ? eventMasking : nil
        do {
            try Self.prepareSchema(connection, pending: pendingMigrations)
        } catch {
            connection.close()
            throw error
        }
        self.connection = connection
        self.deadline = deadline
        self.durability = durability
        queue = DispatchQueue(label: "otp.sqlite-store")
        checkpointer = SQLiteCheckpointer(path: path)
        connection.checkpointAside(with: checkpointer)
    }

    // MARK: - VerificationStore

    /// Takes a start's one step in one immediate transaction (the idempotency key, the permits,
    /// the record) and answers on the queue once committed.
    public func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        let events = self.events
        submit(
            { (db: SQLiteConnection) throws(StoreError) in
                try db.immediateTransaction { () throws(StoreError) -> StartAnswer in
                    if let claim = step.claim,
                        let entry = try Self.idempotencyEntry(db, key: claim.key, now: now)
                    {
                        return .replay(entry)
                    }
                    if case .denied(let wait, let key) = try Self.take(db, step.permits, now: now) {
                        return .denied(waitMilliseconds: wait, key: key)
                    }
                    try Self.insertRows(db, step.record, claim: step.claim, now: now, events: events)
                    return .inserted
                }
            }, completion: reply)
    }

    /// Writes a new verification's row, its claim and its event, inside a transaction.
    static func insertRows(
        _ db: SQLiteConnection, _ record: VerificationRecord, claim: IdempotencyClaim?, now: Date,
        events: DestinationMasking?
    ) throws(StoreError) {
        if let claim {
            try db.query(
                "INSERT OR REPLACE INTO otp_idempotency (key, verification_id, fingerprint, expires_at) "
                    + "VALUES (?, ?, ?, ?)",
                [
                    .text(claim.key), .text(record.id), .text(claim.fingerprint),
                    .integer(StoreTime.milliseconds(claim.expiresAt)),
                ])
        }
        try db.query(SQL.insertVerification, columns(of: record))
        if let events { try note(db, LifecycleEvent.caused(from: nil, to: record, at: now, masking: events)) }
    }

    /// Reads a verification on the queue.
    public func record(id: String, reply: @escaping StoreReply<VerificationRecord?>) {
        submit({ (db: SQLiteConnection) throws(StoreError) in try Self.read(db, id: id) }, completion: reply)
    }

    /// The live entry of an idempotency key.
    public func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry? {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try Self.idempotencyEntry(db, key: key, now: now)
        }
    }

    /// Frees an idempotency key that still belongs to the verification.
    public func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError) {
        _ = try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.query(
                "DELETE FROM otp_idempotency WHERE key = ? AND verification_id = ?",
                [.text(key), .text(verificationID)])
        }
    }

    /// Cancels a pending verification; the `canceled` event, when recorded, is at `now`.
    public func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try await mutate(id, missing: .notFound, eventsAt: now) { $0.cancel() }
    }

    /// Claims the next send.
    public func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError)
        -> BeginResendOutcome
    {
        try await mutate(id, missing: .notFound) {
            $0.beginResend(lease: lease, maxSends: maxSends, now: now)
        }
    }

    /// Puts a resend's code in place.
    public func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) async throws(StoreError)
        -> TransitionOutcome
    {
        // With `eventsAt`, a code that expired before the sweep noted it gets its `expired` here.
        try await mutate(id, missing: .notFound, eventsAt: now) {
            $0.finishResend(token: token, update: update)
        }
    }

    /// Gives up a resend's lease.
    public func abandonResend(id: String, token: String) async throws(StoreError) {
        try await mutate(id, missing: ()) { $0.abandonResend(token: token) }
    }

    /// Takes every permit or none.
    public func acquire(_ permits: [RatePermit], now: Date) async throws(StoreError) -> RateDecision {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) -> RateDecision in
                try Self.take(db, permits, now: now)
            }
        }
    }

    /// Gives permits back.
    public func release(_ permits: [RatePermit], now: Date) async throws(StoreError) {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) in try Self.give(db, permits, now: now) }
        }
    }

    /// Judges a check in one immediate transaction (refusal, permits, attempt, comparison,
    /// approval and refunds) and answers on the queue once committed.
    public func check(_ step: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>) {
        let events = self.events
        submit(
            { (db: SQLiteConnection) throws(StoreError) in try Self.check(db, step, now: now, events: events)
            },
            completion: reply)
    }

    static func check(
        _ db: SQLiteConnection, _ attempt: CheckStep, now: Date, events: DestinationMasking?
    ) throws(StoreError) -> CheckAnswer {
        try db.immediateTransaction { () throws(StoreError) -> CheckAnswer in
            guard var record = try read(db, id: attempt.id) else { return .notFound }
            if let refusal = record.checkRefusal(at: now) { return refusal }
            if case .denied(let wait, let key) = try take(db, attempt.permits, now: now) {
                return .rateLimited(waitMilliseconds: wait, key: key, attemptsLeft: record.attemptsLeft)
            }
            let before = record
            let outcome = record.check(candidateHash: attempt.candidateHash, now: now)
            try write(db, record, over: before)
            if let events {
                try note(db, LifecycleEvent.caused(from: before, to: record, at: now, masking: events))
            }
            if case .approved = outcome { try give(db, attempt.refundsOnApproval, now: now) }
            return outcome
        }
    }

    /// Takes every permit or none, inside a transaction.
    static func take(
        _ db: SQLiteConnection, _ permits: [RatePermit], now: Date
    ) throws(StoreError)
        -> RateDecision
    {
        // Which counters already have a row, by permit (admitAll reads them in order): those are
        // updated in place, the rest inserted, instead of an upsert that tries the insert first.
        var stored: UInt64 = 0
        var read = 0
        let (decision, arrivals) = try RatePermit.admitAll(permits, now: StoreTime.milliseconds(now)) {
            (key: String) throws(StoreError) in
            let arrival = try arrival(db, key: key)
            if arrival != nil, read < 64 { stored |= 1 << read }
            read += 1
            return arrival
        }
        for (index, (key, arrival)) in arrivals.enumerated() {
            if index < 64, stored & (1 << index) != 0 {
                try db.query(SQL.updateArrival, [.integer(arrival), .text(key)])
            } else {
                try db.query(SQL.storeArrival, [.text(key), .integer(arrival)])
            }
        }
        return decision
    }

    /// Gives permits back, inside a transaction.
    static func give(_ db: SQLiteConnection, _ permits: [RatePermit], now: Date) throws(StoreError) {
        let nowMilliseconds = StoreTime.milliseconds(now)
        for permit in permits {
            let stored = try arrival(db, key: permit.key)
            if let arrival = permit.refund(storedArrival: stored, now: nowMilliseconds) {
                try db.query(
                    "UPDATE otp_rates SET arrival = ? WHERE key = ?", [.integer(arrival), .text(permit.key)])
            } else {
                try db.query("DELETE FROM otp_rates WHERE key = ?", [.text(permit.key)])
            }
        }
    }

    /// Deletes expired rows; returns how many verifications went.
    public func purgeExpired(now: Date) async throws(StoreError) -> Int {
        try await run { (db: SQLiteConnection) throws(StoreError) in
            try db.immediateTransaction { () throws(StoreError) in try Self.purge(db, now: now) }
        }
    }

    /// Whether the database takes a write.
    ///
    /// One row of `otp_health` is written in its own transaction, so a full disk or a read-only
    /// file answers unhealthy, not only a closed store.
    public func ping() async -> Bool {
        (try? await run { (db: SQLiteConnection) throws(StoreError) in
            _ = try db.immediateTransaction { () throws(StoreError) in
                try db.query(
                    "INSERT OR REPLACE INTO otp_health (id, checked_at) VALUES (1, ?)",
                    [.integer(StoreTime.milliseconds(Date()))])
            }
            return true
        }) ?? false
    }

    /// Makes every later write fail as on a full disk (`PRAGMA query_only`), for tests of what
    /// depends on the store's writes.
    func refuseWritesForTesting() async {
        _ = try? await run { (db: SQLiteConnection) throws(StoreError) in
            try db.execute("PRAGMA query_only = ON")
        }
    }

    /// Closes the database once the calls already queued have run; later calls throw.
    public func shutdown() async {
        checkpointer.stop()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection?.close()
                self.connection = nil
                continuation.resume()
            }
        }
    }

}
