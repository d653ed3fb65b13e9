import Dispatch
import Foundation
import OTPCore
import OTPEngine

/// The store an operator runs in production: a PostgreSQL database, through libpq, shared by any
/// number of servers.
///
/// Every step is one transaction that locks what it judges before it reads it: the verification's
/// row with `SELECT … FOR UPDATE`, each rate counter by an upsert that creates or locks its row (in
/// key order, so two steps never wait on each other in a circle), an idempotency key by a
/// transaction-scoped advisory lock. The rules then run in Swift (the transitions of
/// ``VerificationRecord``, ``RatePermit`` and ``TOTPFactor``, the hash compared in constant time)
/// and the result is written back before `COMMIT`. A start and a check take two round trips: the
/// locking reads with `BEGIN`, then the writes with `COMMIT`. Calls run on a pool of connections,
/// each with a serial queue of its own, and every wait (for a connection, for the server, for a lock) ends at
/// the call's deadline with `StoreError`; a connection that broke is made again on its next call.
public final class PostgresStore: VerificationStore, Sendable {
    let pool: PostgresPool
    /// Whether state changes write ``LifecycleEvent``s to the `otp_events` outbox.
    let recordsEvents: Bool
    /// How those events mask their destinations; `nil` when the store records none.
    let events: DestinationMasking?

    /// The schema version this store writes and reads.
    ///
    /// Version 2 adds the pumping guard's counters and blocks, version 3 the index by destination
    /// and the delivery attempts; older tables are brought up to it when the store opens.
    public static let schemaVersion = 3

    /// Connects to a PostgreSQL database and creates its tables when they are missing.
    ///
    /// - Parameters:
    ///   - conninfo: a libpq connection string (`host=… dbname=…`) or URL
    ///     (`postgres://USER@HOST:PORT/DB?sslmode=require`).
    ///   - password: the password, when it comes from a file of the caller's; `nil` lets libpq read
    ///     `PGPASSWORD` or `~/.pgpass`. It wins over a password in `conninfo`.
    ///   - schema: the schema that holds the tables, created when missing (letters, digits and
    ///     underscores); `nil` keeps the server's `search_path`.
    ///   - connections: how many connections the pool holds; a call waits for a free one.
    ///   - deadline: how long one call may take in all: the wait for a connection, connecting,
    ///     the server's locks and answers. Also the session's `statement_timeout` and `lock_timeout`.
    ///   - recordsEvents: whether state changes write ``LifecycleEvent``s to the outbox table, in the
    ///     same transaction as the change.
    ///   - eventMasking: how those events mask their destinations.
    /// - Throws: `StoreError` when the server cannot be reached, refuses the login, or the tables
    ///   cannot be made.
    public convenience init(
        conninfo: String, password: String? = nil, schema: String? = nil, connections: Int = 4,
        deadline: Duration = .seconds(2), recordsEvents: Bool = false,
        eventMasking: DestinationMasking = .plain
    ) throws(StoreError) {
        try self.init(
            unopened: conninfo, password: password, schema: schema, connections: connections,
            deadline: deadline, recordsEvents: recordsEvents, eventMasking: eventMasking)
        // The first connection is made now, so a wrong address or password fails the start.
        let outcome = Locked<Result<Void, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.submit(
            { (db: PostgresConnection) throws(StoreError) in try PostgresSchema.create(db, schema: schema) },
            completion: { result in
                outcome.withLock { $0 = result }
                done.signal()
            })
        done.wait()
        if case .failure(let error) = outcome.withLock({ $0 }) { throw error }
    }

    /// ``init(conninfo:password:schema:connections:deadline:recordsEvents:eventMasking:)`` without blocking the
    /// caller's thread while it connects and makes the tables: for an `async` context, where a
    /// blocked thread is one of Swift's few cooperative ones.
    public static func connect(
        conninfo: String, password: String? = nil, schema: String? = nil, connections: Int = 4,
        deadline: Duration = .seconds(2), recordsEvents: Bool = false,
        eventMasking: DestinationMasking = .plain
    ) async throws(StoreError) -> PostgresStore {
        let store = try PostgresStore(
            unopened: conninfo, password: password, schema: schema, connections: connections,
            deadline: deadline, recordsEvents: recordsEvents, eventMasking: eventMasking)
        try await store.run { (db: PostgresConnection) throws(StoreError) in
            try PostgresSchema.create(db, schema: schema)
        }
        return store
    }

    /// A store whose arguments are checked and whose connections are not made yet.
    private init(
        unopened conninfo: String, password: String?, schema: String?, connections: Int, deadline: Duration,
        recordsEvents: Bool, eventMasking: DestinationMasking
    ) throws(StoreError) {
        if let schema, !Self.isPlainIdentifier(schema) {
            throw StoreError("postgres: a schema name is letters, digits and underscores, at most 63")
        }
        guard (1...256).contains(connections) else {
            throw StoreError("postgres: connections must be from 1 to 256")
        }
        guard deadline > .zero else { throw StoreError("postgres: the deadline must be positive") }
        let settings = PostgresConnection.Settings(
            conninfo: conninfo, password: password, schema: schema, deadline: deadline)
        pool = PostgresPool(count: connections, settings: settings)
        self.recordsEvents = recordsEvents
        events = recordsEvents ? eventMasking : nil
    }

    /// Whether a name can be a schema without quoting surprises.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 63 else { return false }
        let letters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
        let rest = letters.union(CharacterSet(charactersIn: "0123456789"))
        return letters.contains(first) && name.unicodeScalars.allSatisfy { rest.contains($0) }
    }

    /// Runs `body` on a free connection and answers its result.
    func run<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        let outcome: Swift.Result<Result, StoreError> = await withCheckedContinuation { continuation in
            pool.submit(body) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Runs `body` in one transaction on a free connection and answers its result.
    func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> Result
    ) async throws(StoreError) -> Result {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.transaction { () throws(StoreError) in try body(db) }
        }
    }

    /// Runs one statement outside a transaction on a free connection.
    func statement(_ sql: String, _ parameters: [PostgresValue]) async throws(StoreError) -> PostgresResult {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try db.query(sql, parameters)
        }
    }

    // MARK: - VerificationStore

    /// Takes a start's one step in one transaction (the idempotency key, the permits, the record)
    /// and answers on the connection's queue once committed.
    ///
    /// Two round trips: the first begins, takes the idempotency key's lock and reads its entry,
    /// and locks the permits' counters; the second writes the counters, the record, its claim and
    /// its event, and commits.
    public func start(_ step: StartStep, now: Date, reply: @escaping StoreReply<StartAnswer>) {
        let events = self.events
        let (keys, locking) = Self.lockingArrivals(step.permits.map(\.key))
        let claiming =
            step.claim.map {
                [
                    PostgresStatement(PostgresSQL.lockIdempotencyKey, [.text("idem:" + $0.key)]),
                    Self.readingIdempotencyEntry(key: $0.key, now: now),
                ]
            } ?? []
        let reads = claiming + locking
        pool.submit(
            { (db: PostgresConnection) throws(StoreError) in
                try db.transaction(reading: reads) { (results) throws(StoreError) in
                    var counters = results[...]
                    if step.claim != nil {
                        if let entry = try Self.idempotencyEntry(results[1]) { return ([], .replay(entry)) }
                        counters = results.dropFirst(2)
                    }
                    var stored = try Self.arrivals(keys, counters)
                    var writes: [PostgresStatement] = []
                    let decision = Self.take(step.permits, stored: &stored, now: now, writes: &writes)
                    if case .denied(let wait, let key) = decision {
                        return (writes, .denied(waitMilliseconds: wait, key: key))
                    }
                    writes += Self.inserting(step.record, claim: step.claim, now: now, events: events)
                    return (writes, .inserted)
                }
            }, completion: reply)
    }

    /// Judges a check in one transaction (refusal, permits, attempt, comparison, approval and
    /// refunds) and answers on the connection's queue once committed.
    ///
    /// Two round trips: the first begins, locks the verification's row and every counter the
    /// check may take or refund (in key order), and reads them; the rules run here; the second
    /// writes what changed and commits.
    public func check(_ step: CheckStep, now: Date, reply: @escaping StoreReply<CheckAnswer>) {
        let events = self.events
        let (keys, locking) = Self.lockingArrivals(
            step.permits.map(\.key) + step.refundsOnApproval.map(\.key))
        let reads = [PostgresStatement(PostgresSQL.readVerificationForUpdate, [.text(step.id)])] + locking
        pool.submit(
            { (db: PostgresConnection) throws(StoreError) in
                try db.transaction(reading: reads) { (results) throws(StoreError) in
                    guard let row = results[0].rows.first else { return ([], CheckAnswer.notFound) }
                    var record = try Self.record(from: row)
                    if let refusal = record.checkRefusal(at: now) { return ([], refusal) }
                    var stored = try Self.arrivals(keys, results.dropFirst())
                    var writes: [PostgresStatement] = []
                    let decision = Self.take(step.permits, stored: &stored, now: now, writes: &writes)
                    if case .denied(let wait, let key) = decision {
                        return (
                            writes,
                            .rateLimited(waitMilliseconds: wait, key: key, attemptsLeft: record.attemptsLeft)
                        )
                    }
                    let before = record
                    let outcome = record.check(candidateHash: step.candidateHash, now: now)
                    if let write = Self.writing(record, over: before) { writes.append(write) }
                    if let events,
                        let event = LifecycleEvent.caused(from: before, to: record, at: now, masking: events)
                    {
                        writes.append(Self.noting(event))
                    }
                    if case .approved = outcome {
                        Self.give(step.refundsOnApproval, stored: &stored, now: now, writes: &writes)
                    }
                    return (writes, outcome)
                }
            }, completion: reply)
    }

    /// Reads a verification on a connection's queue.
    public func record(id: String, reply: @escaping StoreReply<VerificationRecord?>) {
        pool.submit(
            { (db: PostgresConnection) throws(StoreError) in
                try db.open()
                return try Self.read(db, id: id, locking: false)
            }, completion: reply)
    }

    /// The live entry of an idempotency key.
    public func idempotencyEntry(key: String, now: Date) async throws(StoreError) -> IdempotencyEntry? {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try Self.idempotencyEntry(db, key: key, now: now)
        }
    }

    /// Frees an idempotency key that still belongs to the verification.
    public func releaseIdempotencyKey(_ key: String, verificationID: String) async throws(StoreError) {
        _ = try await statement(
            "DELETE FROM otp_idempotency WHERE key = $1 AND verification_id = $2",
            [.text(key), .text(verificationID)])
    }

    /// Cancels a pending verification; the `canceled` event, when recorded, is at `now`.
    public func cancel(id: String, now: Date) async throws(StoreError) -> TransitionOutcome {
        try await mutate(id, missing: .notFound, eventsAt: now) { $0.cancel() }
    }

    /// Claims the next send.
    public func beginResend(
        id: String, lease: ResendLease, maxSends: Int, now: Date
    ) async throws(StoreError) -> BeginResendOutcome {
        try await mutate(id, missing: .notFound) {
            $0.beginResend(lease: lease, maxSends: maxSends, now: now)
        }
    }

    /// Puts a resend's code in place.
    public func finishResend(
        id: String, token: String, update: CodeUpdate, now: Date
    ) async throws(StoreError) -> TransitionOutcome {
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
        try await transaction { (db: PostgresConnection) throws(StoreError) in
            try Self.take(db, permits, now: now)
        }
    }

    /// Gives permits back.
    public func release(_ permits: [RatePermit], now: Date) async throws(StoreError) {
        try await transaction { (db: PostgresConnection) throws(StoreError) in
            try Self.give(db, permits, now: now)
        }
    }

    /// Deletes expired rows, at most 1,000 a statement; returns how many verifications went.
    public func purgeExpired(now: Date) async throws(StoreError) -> Int {
        try await run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try Self.purge(db, now: now)
        }
    }

    /// Whether the database takes a write.
    ///
    /// One row of `otp_health` is written in its own transaction, so a read-only server (a
    /// standby, a full disk) answers unhealthy, not only an unreachable one.
    public func ping() async -> Bool {
        (try? await transaction { (db: PostgresConnection) throws(StoreError) in
            try db.query(
                "INSERT INTO otp_health (id, checked_at) VALUES (1, $1) "
                    + "ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
                [.integer(StoreTime.milliseconds(Date()))])
            return true
        }) ?? false
    }

    /// Makes the sessions open now refuse writes (`default_transaction_read_only`), as a standby
    /// does, for tests of what depends on the store's writes.
    func refuseWritesForTesting() async throws(StoreError) {
        _ = try await statement("SELECT set_config('default_transaction_read_only', 'on', false)", [])
    }

    /// Runs one statement, for tests that set the database up.
    func executeForTesting(_ sql: String) async throws(StoreError) {
        _ = try await statement(sql, [])
    }

    /// Closes every connection once the calls running have finished; later calls throw.
    public func shutdown() async {
        await pool.shutdown()
    }
}
