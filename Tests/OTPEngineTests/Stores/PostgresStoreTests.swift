import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// What only the PostgreSQL store does: refused logins, bad arguments, its schema and version, a
/// read-only server, batched purges.
@Suite struct PostgresStoreTests {
    typealias T = StoreConformanceTests

    /// A fresh store on the shared test server.
    static func store(
        schema: String = PostgresTestServer.freshSchema(), connections: Int = 2,
        deadline: Duration = .seconds(2)
    ) throws(StoreError) -> PostgresStore {
        try PostgresStore(conninfo: try url(), schema: schema, connections: connections, deadline: deadline)
    }

    /// The shared test server's URL; a store error when there is none.
    static func url() throws(StoreError) -> String {
        switch PostgresTestServer.url {
        case .success(let url): return url
        case .failure(let problem): throw StoreError(problem.description)
        }
    }

    /// The error a throwing store call gave, or `nil` when it returned.
    static func failure<Value>(_ call: () async throws(StoreError) -> Value) async -> StoreError? {
        do {
            _ = try await call()
            return nil
        } catch {
            return error
        }
    }

    /// The error opening a store gave, or `nil` when it opened.
    static func openingFailure(_ open: () throws(StoreError) -> PostgresStore) async -> StoreError? {
        do {
            let store = try open()
            await store.shutdown()
            return nil
        } catch {
            return error
        }
    }

    @Test("a wrong password is refused with the server's message, and the right one given to the store works")
    func password() async throws {
        let url = try PostgresTestServer.url.get().replacingOccurrences(
            of: "://otp@", with: "://\(ThrowawayPostgres.lockedRole)@")
        let schema = PostgresTestServer.freshSchema()
        let refused = await Self.openingFailure { () throws(StoreError) in
            try PostgresStore(conninfo: url, password: "not-the-password", schema: schema)
        }
        #expect(refused?.reason.contains("password authentication failed") == true)
        #expect(refused?.reason.contains("not-the-password") == false)
        do {
            _ = try await PostgresStore.connect(conninfo: url, password: "not-the-password", schema: schema)
            Issue.record("connect took a wrong password")
        } catch {
            #expect(error.reason.contains("password authentication failed"))
        }
        let missing = await Self.openingFailure { () throws(StoreError) in
            try PostgresStore(conninfo: url + "?passfile=/nonexistent", schema: schema)
        }
        #expect(missing != nil)
        let store = try PostgresStore(
            conninfo: url, password: ThrowawayPostgres.lockedPassword, schema: schema)
        #expect(try await store.insert(T.sample(), claim: nil, now: T.t0) == .inserted)
        #expect(await store.ping())
        await store.shutdown()
        // libpq reads a password file itself (as it reads ~/.pgpass and PGPASSWORD).
        let passfile = temporaryDirectory() + "/pgpass"
        let line = "*:*:*:\(ThrowawayPostgres.lockedRole):\(ThrowawayPostgres.lockedPassword)\n"
        #expect(
            FileManager.default.createFile(
                atPath: passfile, contents: Data(line.utf8), attributes: [.posixPermissions: 0o600]))
        let filed = try await PostgresStore.connect(conninfo: url + "?passfile=" + passfile, schema: schema)
        #expect(try await filed.record(id: "vf_sample") == T.sample())
        await filed.shutdown()
    }

    @Test("a malformed conninfo and a bad schema name are store errors, before any connection")
    func badArguments() async throws {
        let malformed = await Self.openingFailure { () throws(StoreError) in
            try PostgresStore(conninfo: "postgres://otp@127.0.0.1:notaport/postgres")
        }
        #expect(malformed?.reason.hasPrefix("postgres: cannot connect") == true)
        let schema = await Self.openingFailure { () throws(StoreError) in
            try PostgresStore(conninfo: try Self.url(), schema: "x; DROP TABLE y")
        }
        #expect(schema?.reason.contains("schema name") == true)
        let pool = await Self.openingFailure { () throws(StoreError) in
            try PostgresStore(conninfo: "dbname=x", connections: 0)
        }
        #expect(pool?.reason.contains("connections") == true)
    }

    @Test(
        "the tables carry schema version 3 (version 1 is brought up); a database at a newer version is refused"
    )
    func schemaVersion() async throws {
        #expect(PostgresStore.schemaVersion == 3)
        let schema = PostgresTestServer.freshSchema()
        let store = try Self.store(schema: schema)
        try await store.executeForTesting("UPDATE otp_schema SET version = 4")
        await store.shutdown()
        let error = await Self.openingFailure { () throws(StoreError) in try Self.store(schema: schema) }
        #expect(error?.reason.contains("schema version 4") == true)
        // A version 1 database (before the pumping guard's tables and the delivery attempts) is
        // brought up to version 3.
        let old = PostgresTestServer.freshSchema()
        let versionOne = try Self.store(schema: old)
        for statement in [
            "DROP TABLE otp_fraud_counts", "DROP TABLE otp_fraud_blocks", "DROP TABLE otp_deliveries",
            "DROP INDEX otp_verifications_destination", "UPDATE otp_schema SET version = 1",
        ] {
            try await versionOne.executeForTesting(statement)
        }
        await versionOne.shutdown()
        let upgraded = try Self.store(schema: old)
        #expect(try await upgraded.fraudCounts(since: Date(timeIntervalSince1970: 0)).isEmpty)
        #expect(try await upgraded.deliveries(id: "v_none").isEmpty)
        await upgraded.shutdown()
        // Two stores opening the same new schema at once both find it made.
        let fresh = PostgresTestServer.freshSchema()
        async let first = Self.openingFailure { () throws(StoreError) in try Self.store(schema: fresh) }
        async let second = Self.openingFailure { () throws(StoreError) in try Self.store(schema: fresh) }
        #expect(await first == nil)
        #expect(await second == nil)
    }

    @Test("tables at version 1 are brought up to version 3 when a store opens, their rows kept")
    func upgradeFromVersionOne() async throws {
        let schema = PostgresTestServer.freshSchema()
        let old = try Self.store(schema: schema)
        let t0 = StoreConformanceTests.t0
        #expect(
            try await old.insert(StoreConformanceTests.sample("vf_kept"), claim: nil, now: t0) == .inserted)
        // What version 1 had: no pumping guard tables, no delivery attempts, no index by destination.
        try await old.executeForTesting("DROP TABLE otp_fraud_counts")
        try await old.executeForTesting("DROP TABLE otp_fraud_blocks")
        try await old.executeForTesting("DROP TABLE otp_deliveries")
        try await old.executeForTesting("DROP INDEX otp_verifications_destination")
        try await old.executeForTesting("UPDATE otp_schema SET version = 1")
        await old.shutdown()

        let store = try Self.store(schema: schema)
        defer { Task { await store.shutdown() } }
        let attempt = DeliveryAttempt(
            verificationID: "vf_kept", at: t0, channel: .sms, step: .start, outcome: .sent, messageID: "SM1")
        try await store.noteDelivery(attempt)
        #expect(try await store.deliveries(id: "vf_kept") == [attempt])
        let query = VerificationQuery(destination: "+15555550100", limit: 10)
        #expect(try await store.verifications(matching: query, now: t0).map(\.id) == ["vf_kept"])
        try await store.executeForTesting(
            "DO $$ BEGIN IF (SELECT max(version) FROM otp_schema) <> 3 THEN RAISE 'not upgraded'; END IF; END $$"
        )
    }

    @Test("a server that refuses writes is unhealthy, and a write fails with its message")
    func readOnly() async throws {
        let store = try Self.store(connections: 1)
        #expect(await store.ping())
        try await store.refuseWritesForTesting()
        #expect(await store.ping() == false)
        let error = await Self.failure { () async throws(StoreError) in
            try await store.insert(T.sample(), claim: nil, now: T.t0)
        }
        #expect(error?.reason.contains("read-only transaction") == true)
        await store.shutdown()
    }

    @Test("a purge deletes more than one batch of rows")
    func purgeInBatches() async throws {
        let store = try Self.store(connections: 4)
        let count = PostgresStore.purgeBatch + 30
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for index in stride(from: lane, to: count, by: 4) {
                        _ = try await store.insert(T.sample("vf_\(index)"), claim: nil, now: T.t0)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.purgeExpired(now: T.at(300 + 86_399)) == 0)
        #expect(try await store.purgeExpired(now: T.at(300 + 86_400)) == count)
        #expect(try await store.record(id: "vf_0") == nil)
        await store.shutdown()
    }

    @Test("a purge keeps an idempotency key a start renews while the purge runs, and waits for no row")
    func purgeKeepsRenewedKey() async throws {
        let schema = PostgresTestServer.freshSchema()
        let store = try Self.store(schema: schema, deadline: .seconds(20))
        let other = try Self.store(schema: schema, connections: 1, deadline: .seconds(20))
        _ = try await store.record(id: "vf_none")
        let key = "k|renewed"
        _ = try await store.run { (db: PostgresConnection) throws(StoreError) -> Int in
            try db.open()
            return try db.query(
                "INSERT INTO otp_idempotency (key, verification_id, fingerprint, expires_at) VALUES ($1, 'vf_old', "
                    + "'\\x00', $2)", [.text(key), .integer(StoreTime.milliseconds(T.at(10)))]
            ).affected
        }
        // Another session renews the expired key (as a start with it does) and holds it uncommitted.
        let (renewed, holding) = AsyncStream<Void>.makeStream()
        let go = DispatchSemaphore(value: 0)
        let renewal = Task {
            await withCheckedContinuation { (done: CheckedContinuation<Result<Int, StoreError>, Never>) in
                other.pool.submit({ (db: PostgresConnection) throws(StoreError) -> Int in
                    try db.open()
                    try db.query("BEGIN")
                    let updated = try db.query(
                        "UPDATE otp_idempotency SET verification_id = 'vf_new', expires_at = $2 WHERE key = $1",
                        [.text(key), .integer(StoreTime.milliseconds(T.at(1000)))])
                    holding.yield()
                    go.wait()
                    try db.query("COMMIT")
                    return updated.affected
                }) { done.resume(returning: $0) }
            }
        }
        for await _ in renewed { break }
        let finished = Locked(false)
        let purging = Task { () async throws(StoreError) -> Int in
            defer { finished.withLock { $0 = true } }
            return try await store.purgeExpired(now: T.at(100))
        }
        // Until the purge ends, or waits for the held key (as it did when it deleted by key alone).
        var waiting = 0
        for _ in 0..<2000 where waiting == 0 && !finished.withLock({ $0 }) {
            waiting = try await store.run { (db: PostgresConnection) throws(StoreError) -> Int in
                try db.open()
                return Int(
                    try db.query(
                        "SELECT count(*)::bigint FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            + "AND query LIKE 'DELETE FROM otp_idempotency%'"
                    ).rows.first?.integer(0) ?? 0)
            }
            if waiting == 0 { await Task.yield() }
        }
        go.signal()
        _ = try await purging.value
        #expect(try await renewal.value.get() == 1)
        #expect(waiting == 0, "the purge waited for a row a step held")
        let kept = try await store.run { (db: PostgresConnection) throws(StoreError) -> [String] in
            try db.open()
            return try db.query("SELECT verification_id FROM otp_idempotency WHERE key = $1", [.text(key)])
                .rows.compactMap {
                    $0.text(0)
                }
        }
        #expect(kept == ["vf_new"], "the renewed key is kept")
        await other.shutdown()
        await store.shutdown()
    }

    @Test("the expiry sweep leaves a code a step holds to the next sweep: never canceled and expired both")
    func sweepSkipsHeldCode() async throws {
        let schema = PostgresTestServer.freshSchema()
        let store = try PostgresStore(
            conninfo: try Self.url(), schema: schema, connections: 2, deadline: .seconds(20),
            recordsEvents: true)
        let other = try PostgresStore(
            conninfo: try Self.url(), schema: schema, connections: 1, deadline: .seconds(20),
            recordsEvents: true)
        _ = try await store.insert(T.sample("vf_held"), claim: nil, now: T.t0)
        // Another session cancels the expired code (as a cancel does) and holds it uncommitted.
        let (held, holding) = AsyncStream<Void>.makeStream()
        let go = DispatchSemaphore(value: 0)
        let cancel = Task {
            await withCheckedContinuation { (done: CheckedContinuation<Result<Int, StoreError>, Never>) in
                other.pool.submit({ (db: PostgresConnection) throws(StoreError) -> Int in
                    try db.open()
                    try db.query("BEGIN")
                    let updated = try db.query(
                        "UPDATE otp_verifications SET state = 'canceled' WHERE id = 'vf_held'")
                    holding.yield()
                    go.wait()
                    try db.query("COMMIT")
                    return updated.affected
                }) { done.resume(returning: $0) }
            }
        }
        for await _ in held { break }
        let noted = try await store.noteExpiries(now: T.at(10_000), limit: 10)
        go.signal()
        #expect(try await cancel.value.get() == 1)
        #expect(noted == 0, "the held code was left to the next sweep")
        #expect(try await store.noteExpiries(now: T.at(10_001), limit: 10) == 0, "canceled: nothing to note")
        let kinds = try await store.run { (db: PostgresConnection) throws(StoreError) -> [String] in
            try db.open()
            return try db.query("SELECT kind FROM otp_events WHERE verification_id = 'vf_held' ORDER BY seq")
                .rows.compactMap { $0.text(0) }
        }
        #expect(!kinds.contains("expired"), "\(kinds)")
        await other.shutdown()
        await store.shutdown()
    }

    @Test("a block whose forgotten row is deleted while the block waits for it is still written")
    func blockAfterConcurrentPurge() async throws {
        let schema = PostgresTestServer.freshSchema()
        // Deadlines long enough that the waits for the held row outlast a busy machine: the other
        // session's call lasts from its BEGIN until the block is seen waiting.
        let store = try Self.store(schema: schema, deadline: .seconds(20))
        let other = try Self.store(schema: schema, connections: 1, deadline: .seconds(20))
        let key = "prefix:+447500"
        let request = FraudBlockRequest(key: key, base: .seconds(1), memory: .seconds(1))
        // A block long ended and forgotten, its row not yet purged.
        _ = try await store.blockFraud(request, now: T.t0)
        let later = T.at(60)
        // Another session holds that row, then deletes it (as a purge does) once the block waits.
        let (locked, holding) = AsyncStream<Void>.makeStream()
        let go = DispatchSemaphore(value: 0)
        let purge = Task {
            await withCheckedContinuation { (done: CheckedContinuation<Result<Int, StoreError>, Never>) in
                other.pool.submit({ (db: PostgresConnection) throws(StoreError) -> Int in
                    try db.open()
                    try db.query("BEGIN")
                    try db.query("SELECT key FROM otp_fraud_blocks WHERE key = $1 FOR UPDATE", [.text(key)])
                    holding.yield()
                    // The lane's own thread waits here, not a task's.
                    go.wait()
                    let deleted = try db.query("DELETE FROM otp_fraud_blocks WHERE key = $1", [.text(key)])
                    try db.query("COMMIT")
                    return deleted.affected
                }) { done.resume(returning: $0) }
            }
        }
        for await _ in locked { break }
        let blocking = Task { () async throws(StoreError) -> FraudBlockState in
            try await store.blockFraud(request, now: later)
        }
        // Let the block's transaction reach the held row before the row goes.
        var waiting = 0
        for _ in 0..<2000 where waiting == 0 {
            waiting = try await store.run { (db: PostgresConnection) throws(StoreError) -> Int in
                try db.open()
                return Int(
                    try db.query(
                        "SELECT count(*)::bigint FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                            + "AND query LIKE '%otp_fraud_blocks%'"
                    ).rows.first?
                    .integer(0)
                        ?? 0)
            }
            if waiting == 0 { await Task.yield() }
        }
        #expect(waiting > 0, "the block never waited for the held row")
        go.signal()
        let block = try await blocking.value
        #expect(block.created)
        #expect(try await purge.value.get() == 1)
        let stored = try await store.run { (db: PostgresConnection) throws(StoreError) -> [Int64] in
            try db.open()
            return try db.query("SELECT until FROM otp_fraud_blocks WHERE key = $1", [.text(key)]).rows
                .compactMap {
                    $0.integer(0)
                }
        }
        #expect(stored == [StoreTime.milliseconds(block.until)], "the block made is the block stored")
        await other.shutdown()
        await store.shutdown()
    }
}

/// The PostgreSQL store's deadlines against real time: an unreachable, a silent, a busy, a frozen
/// and a stopped server.
///
/// Run apart from the parallel run (scripts/test.sh), like the other suites
/// that bound real time, since a starved thread pool there delays answers by seconds; one test at
/// a time, as two of them start a cluster of their own.
@Suite(.serialized) struct PostgresDeadlineTests {
    typealias T = StoreConformanceTests

    @Test("a server where nothing listens fails the open with a store error, within the deadline")
    func unreachable() async throws {
        let closed = try ClosedPort()
        let began = ContinuousClock.now
        let error = await PostgresStoreTests.openingFailure { () throws(StoreError) in
            try PostgresStore(
                conninfo: "postgres://otp@127.0.0.1:\(closed.port)/postgres", deadline: .seconds(2))
        }
        #expect(error?.reason.contains("cannot connect") == true)
        #expect(began.duration(to: .now) < .seconds(2))
    }

    @Test("a server that accepts and never answers fails the open at the deadline, not later")
    func silentServer() async throws {
        // A socket that listens and never accepts: the connection completes, the login never answers.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound && listen(listener, 8) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let began = ContinuousClock.now
        let error = await PostgresStoreTests.openingFailure { () throws(StoreError) in
            try PostgresStore(
                conninfo: "host=127.0.0.1 port=\(port) user=otp dbname=postgres sslmode=disable",
                deadline: .milliseconds(300))
        }
        let took = began.duration(to: .now)
        #expect(error?.reason == "postgres: timed out connecting")
        #expect(took >= .milliseconds(300))
        #expect(took < .seconds(2))
    }

    @Test("all connections busy: a call waits for one and fails at its own deadline")
    func poolWait() async throws {
        let store = try PostgresStoreTests.store(connections: 1, deadline: .milliseconds(400))
        // The one connection sleeps past the deadline on the server (statement_timeout, the deadline,
        // ends it); the second call waits in line for it. Both are submitted in order from here, and
        // each answer notes its time on the lane's queue, where no busy thread pool delays it.
        let answers = Locked<[String: (failed: Bool, after: Duration)]>([:])
        let began = ContinuousClock.now
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let note: @Sendable (String, Bool) -> Void = { name, failed in
                let count = answers.withLock { all -> Int in
                    all[name] = (failed, began.duration(to: .now))
                    return all.count
                }
                if count == 2 { done.resume() }
            }
            store.pool.submit({ (db: PostgresConnection) throws(StoreError) in
                try db.open()
                return try db.query("SELECT pg_sleep(5)").affected
            }) { note("slow", (try? $0.get()) == nil) }
            store.record(id: "vf_none") { note("queued", (try? $0.get()) == nil) }
        }
        let all = answers.withLock { $0 }
        for name in ["slow", "queued"] {
            let answer = try #require(all[name])
            #expect(answer.failed, "\(name)")
            #expect(answer.after >= .milliseconds(400), "\(name)")
            #expect(answer.after < .milliseconds(1200), "\(name)")
        }
        // The next call gets a working connection.
        #expect(try await store.record(id: "vf_none") == nil)
        await store.shutdown()
    }

    @Test("a frozen server fails a call at its deadline; thawed, the next call succeeds on a new connection")
    func frozen() async throws {
        let server = try ThrowawayPostgres()
        let store = try PostgresStore(conninfo: server.url, connections: 1, deadline: .milliseconds(500))
        _ = try await store.insert(T.sample(attempts: 5), claim: nil, now: T.t0)
        try server.freeze()
        let began = ContinuousClock.now
        let error = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await store.check(id: "vf_sample", candidateHash: [1], now: T.at(1))
        }
        let failedAfter = began.duration(to: .now)
        try server.thaw()
        #expect(error?.reason == "postgres: timed out waiting for the server")
        #expect(failedAfter >= .milliseconds(500))
        #expect(failedAfter < .milliseconds(1500))
        #expect(
            try await store.check(id: "vf_sample", candidateHash: [1], now: T.at(2))
                == .incorrect(attemptsLeft: 4))
        print("postgres frozen: a call failed after \(failedAfter) (deadline 500 ms)")
        await store.shutdown()
    }

    @Test("an outage: a stopped server fails calls quickly with a store error; started again, calls succeed")
    func outage() async throws {
        let server = try ThrowawayPostgres()
        let store = try PostgresStore(conninfo: server.url, connections: 2, deadline: .seconds(2))
        _ = try await store.insert(T.sample(attempts: 5), claim: nil, now: T.t0)
        #expect(
            try await store.check(id: "vf_sample", candidateHash: [1], now: T.at(1))
                == .incorrect(attemptsLeft: 4))

        try await server.stop()
        var began = ContinuousClock.now
        let error = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await store.check(id: "vf_sample", candidateHash: [1], now: T.at(2))
        }
        let failedAfter = began.duration(to: .now)
        #expect(error != nil)
        #expect(failedAfter < .seconds(2))
        #expect(await store.ping() == false)

        try await server.start()
        began = ContinuousClock.now
        let answer = try await store.check(id: "vf_sample", candidateHash: [1], now: T.at(3))
        let recoveredAfter = began.duration(to: .now)
        #expect(answer == .incorrect(attemptsLeft: 3))
        #expect(await store.ping())
        print(
            "postgres outage: a call failed after \(failedAfter); the first call after the restart took \(recoveredAfter)"
        )
        await store.shutdown()
    }

}
