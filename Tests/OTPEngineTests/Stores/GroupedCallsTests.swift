import Dispatch
import Foundation
import OTPEngine
import Testing

@testable import OTPRedis
@testable import OTPSQLite

/// Calls that wait for a store's connection together.
///
/// SQLite commits them in one transaction, Redis writes their scripts as one pipeline. Each test holds the connection's queue with a call
/// that waits on a gate, queues the calls, then opens the gate, so they are sure to wait together.
@Suite struct GroupedCallsTests {
    /// Collects the answers of calls made with a completion, in any order.
    final class Answers<Value: Sendable>: @unchecked Sendable {
        // Guards both fields.
        private let lock = NSLock()
        private var values: [Int: Value] = [:]
        private var waiter: (count: Int, continuation: CheckedContinuation<[Int: Value], Never>)?

        func put(_ index: Int, _ value: Value) {
            lock.lock()
            values[index] = value
            if let waiter, values.count >= waiter.count {
                self.waiter = nil
                let all = values
                lock.unlock()
                waiter.continuation.resume(returning: all)
                return
            }
            lock.unlock()
        }

        func all(_ count: Int) async -> [Int: Value] {
            await withCheckedContinuation { continuation in
                lock.lock()
                if values.count >= count {
                    let all = values
                    lock.unlock()
                    continuation.resume(returning: all)
                } else {
                    waiter = (count, continuation)
                    lock.unlock()
                }
            }
        }
    }

    // MARK: - SQLite

    /// Holds the store's queue with a call that waits on `gate`; returns once that call runs.
    private static func hold(_ store: SQLiteStore, until gate: DispatchSemaphore) async {
        let running = Answers<Bool>()
        store.submit({ (_: SQLiteConnection) throws(StoreError) -> Bool in
            running.put(0, true)
            gate.wait()
            return true
        }) { _ in }
        _ = await running.all(1)
    }

    private static func insertRate(_ key: String) -> @Sendable (SQLiteConnection) throws(StoreError) -> Bool {
        { db throws(StoreError) in
            let grouped = db.isInTransaction
            try db.query("INSERT INTO otp_rates (key, arrival) VALUES (?, 1)", [.text(key)])
            return grouped
        }
    }

    private static func rateKeys(_ path: String) async throws -> Set<String> {
        let reader = try SQLiteStore(path: path)
        defer { Task { await reader.shutdown() } }
        let answers = Answers<Result<[String], StoreError>>()
        reader.submit({ db throws(StoreError) in
            try db.query("SELECT key FROM otp_rates").compactMap { $0.first?.text }
        }) { answers.put(0, $0) }
        return Set(try #require(await answers.all(1)[0]).get())
    }

    @Test("SQLite: calls that wait together share one transaction; one that fails loses only its writes")
    func sqliteGroup() async throws {
        let path = temporaryDirectory() + "/group.sqlite3"
        let store = try SQLiteStore(path: path)
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<Bool, StoreError>>()
        await Self.hold(store, until: gate)
        store.submit(Self.insertRate("a")) { answers.put(1, $0) }
        store.submit({ db throws(StoreError) -> Bool in
            try db.query("INSERT INTO otp_rates (key, arrival) VALUES ('b', 1)")
            throw StoreError("refused on purpose")
        }) { answers.put(2, $0) }
        store.submit(Self.insertRate("c")) { answers.put(3, $0) }
        gate.signal()
        let all = await answers.all(3)
        #expect(try all[1]?.get() == true, "the waiting calls ran inside one transaction")
        #expect(try all[3]?.get() == true)
        #expect(throws: StoreError.self) { try all[2]?.get() }
        await store.shutdown()
        #expect(try await Self.rateKeys(path) == ["a", "c"], "committed, without the failed call's row")
    }

    /// Holds the queue, then queues call 1, which inserts `a` and on its first run submits call 3,
    /// `late` (so it arrives while the group runs), and call 2, which inserts `b`; answers all three.
    private static func groupWithArrival(
        _ store: SQLiteStore, late: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> Bool
    ) async -> [Int: Result<Bool, StoreError>] {
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<Bool, StoreError>>()
        await hold(store, until: gate)
        let submitted = Runs()
        store.submit({ db throws(StoreError) -> Bool in
            try db.query("INSERT OR REPLACE INTO otp_rates (key, arrival) VALUES ('a', 1)")
            // Only the first run submits: after a failure the group runs again with savepoints.
            if submitted.all["late"] == nil {
                submitted.add("late")
                store.submit(late) { answers.put(3, $0) }
            }
            return true
        }) { answers.put(1, $0) }
        store.submit(insertRate("b")) { answers.put(2, $0) }
        gate.signal()
        return await answers.all(3)
    }

    @Test("SQLite: a call that arrives while a group runs joins it before the commit")
    func sqliteJoinsArrivals() async throws {
        let path = temporaryDirectory() + "/join.sqlite3"
        let store = try SQLiteStore(path: path)
        // A second connection sees only what is committed.
        let reader = try SQLiteConnection(path: path, synchronous: .normal)
        defer { reader.close() }
        let all = await Self.groupWithArrival(store) { db throws(StoreError) -> Bool in
            try db.query("INSERT INTO otp_rates (key, arrival) VALUES ('late', 1)")
            return try reader.query("SELECT key FROM otp_rates WHERE key = 'a'").isEmpty
        }
        #expect(try all[1]?.get() == true)
        #expect(try all[2]?.get() == true)
        #expect(try all[3]?.get() == true, "the late call ran before the group's first write was committed")
        await store.shutdown()
        #expect(try await Self.rateKeys(path) == ["a", "b", "late"])
    }

    @Test("SQLite: a call that joins a group and fails loses only its own writes")
    func sqliteJoinedFailure() async throws {
        let path = temporaryDirectory() + "/join-fail.sqlite3"
        let store = try SQLiteStore(path: path)
        let all = await Self.groupWithArrival(store) { db throws(StoreError) -> Bool in
            try db.query("INSERT INTO otp_rates (key, arrival) VALUES ('late', 1)")
            throw StoreError("refused on purpose")
        }
        #expect(try all[1]?.get() == true)
        #expect(try all[2]?.get() == true)
        #expect(throws: StoreError.self) { try all[3]?.get() }
        await store.shutdown()
        #expect(try await Self.rateKeys(path) == ["a", "b"])
    }

    /// Counts how many times each call's body ran.
    final class Runs: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func add(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
        var all: [String: Int] { lock.withLock { counts } }
    }

    @Test(
        "SQLite: a group with no failure runs each call once; one failure runs the group again with savepoints"
    )
    func sqliteRunsAgainOnlyOnFailure() async throws {
        let path = temporaryDirectory() + "/again.sqlite3"
        let store = try SQLiteStore(path: path)
        let runs = Runs()
        func counted(
            _ name: String, failing: Bool = false
        ) -> @Sendable (SQLiteConnection) throws(StoreError) -> Bool {
            { db throws(StoreError) in
                runs.add(name)
                try db.query("INSERT INTO otp_rates (key, arrival) VALUES (?, 1)", [.text(name)])
                if failing { throw StoreError("refused on purpose") }
                return true
            }
        }
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<Bool, StoreError>>()
        await Self.hold(store, until: gate)
        for (index, name) in ["a", "b", "c"].enumerated() {
            store.submit(counted(name)) { answers.put(index, $0) }
        }
        gate.signal()
        _ = await answers.all(3)
        #expect(runs.all == ["a": 1, "b": 1, "c": 1])

        let second = DispatchSemaphore(value: 0)
        let more = Answers<Result<Bool, StoreError>>()
        await Self.hold(store, until: second)
        store.submit(counted("d")) { more.put(0, $0) }
        store.submit(counted("e", failing: true)) { more.put(1, $0) }
        store.submit(counted("f")) { more.put(2, $0) }
        second.signal()
        let all = await more.all(3)
        #expect(try all[0]?.get() == true)
        #expect(throws: StoreError.self) { try all[1]?.get() }
        #expect(try all[2]?.get() == true)
        // d and e ran in the first attempt, which e's failure undid; f never ran in it.
        #expect(runs.all == ["a": 1, "b": 1, "c": 1, "d": 2, "e": 2, "f": 1])
        await store.shutdown()
        #expect(try await Self.rateKeys(path) == ["a", "b", "c", "d", "f"])
    }

    @Test("SQLite: when SQLite rolls the whole transaction back, the calls before fail and the rest go on")
    func sqliteRolledBack() async throws {
        let path = temporaryDirectory() + "/rolled.sqlite3"
        let store = try SQLiteStore(path: path)
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<Bool, StoreError>>()
        await Self.hold(store, until: gate)
        store.submit(Self.insertRate("a")) { answers.put(1, $0) }
        // What a full disk or an I/O error does: the transaction ends, not just the statement.
        store.submit({ db throws(StoreError) -> Bool in
            try db.query("ROLLBACK")
            return true
        }) { answers.put(2, $0) }
        store.submit(Self.insertRate("c")) { answers.put(3, $0) }
        store.submit(Self.insertRate("d")) { answers.put(4, $0) }
        gate.signal()
        let all = await answers.all(4)
        #expect(throws: StoreError.self) { try all[1]?.get() }
        #expect(throws: StoreError.self) { try all[2]?.get() }
        #expect(try all[3]?.get() == true)
        #expect(try all[4]?.get() == true)
        await store.shutdown()
        #expect(try await Self.rateKeys(path) == ["c", "d"])
    }

    @Test("SQLite: a call that waited past its deadline fails without running")
    func sqliteDeadline() async throws {
        let path = temporaryDirectory() + "/late.sqlite3"
        let store = try SQLiteStore(path: path, deadline: .milliseconds(50))
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<Bool, StoreError>>()
        await Self.hold(store, until: gate)
        store.submit(Self.insertRate("late")) { answers.put(1, $0) }
        // The gate holds the queue past the call's deadline (a real wait: the deadline is the
        // store's own monotonic clock, which no test clock drives).
        try await Task.sleep(for: .milliseconds(120))
        gate.signal()
        let all = await answers.all(1)
        #expect(throws: StoreError.self) { try all[1]?.get() }
        await store.shutdown()
        #expect(try await Self.rateKeys(path).isEmpty)
    }

    /// A call that answers the connection's `PRAGMA synchronous` (1 NORMAL, 2 FULL) as it runs,
    /// and whether it runs inside a group's transaction.
    private static let synchronousLevel: @Sendable (SQLiteConnection) throws(StoreError) -> [Int64] = { db in
        let level = try db.query("PRAGMA synchronous").first?.first?.integer ?? -1
        return [level, db.isInTransaction ? 1 : 0]
    }

    @Test(
        "SQLite: a durable call runs alone at synchronous=FULL between groups at the store's own durability",
        arguments: [SQLiteStore.Durability.normal, .full])
    func sqliteDurableCall(durability: SQLiteStore.Durability) async throws {
        // A deadline far off: a loaded machine (the sanitizers' runs) must not time the held calls out.
        let store = try SQLiteStore(
            path: temporaryDirectory() + "/durable.sqlite3", durability: durability, deadline: .seconds(60))
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<[Int64], StoreError>>()
        await Self.hold(store, until: gate)
        store.submit(Self.synchronousLevel) { answers.put(0, $0) }
        store.submit(Self.synchronousLevel) { answers.put(1, $0) }
        store.submit(Self.synchronousLevel, durable: true) { answers.put(2, $0) }
        store.submit(Self.synchronousLevel) { answers.put(3, $0) }
        store.submit(Self.synchronousLevel) { answers.put(4, $0) }
        gate.signal()
        let all = await answers.all(5)
        let own: Int64 = durability == .full ? 2 : 1
        #expect(try all[0]?.get() == [own, 1], "the two calls before share a transaction")
        #expect(try all[1]?.get() == [own, 1])
        #expect(try all[2]?.get() == [2, 0], "alone, at FULL")
        #expect(try all[3]?.get() == [own, 1], "the two after share one too, back at the store's own")
        #expect(try all[4]?.get() == [own, 1])
        // A failed durable call sets the level back all the same.
        await #expect(throws: StoreError.self) {
            try await store.run(durable: true) { (_: SQLiteConnection) throws(StoreError) -> Bool in
                throw StoreError("refused on purpose")
            }
        }
        #expect(try await store.run(Self.synchronousLevel) == [own, 0])
        await store.shutdown()
    }

    @Test("SQLite: an authenticator factor's writes take the durable path, apart from every group")
    func sqliteFactorWritesAreDurable() async throws {
        // A deadline far off: the write waits behind a held call while this task is scheduled again,
        // which a loaded machine (the sanitizers' runs) can take seconds to do.
        let store = try SQLiteStore(path: temporaryDirectory() + "/factor.sqlite3", deadline: .seconds(60))
        let factor = TOTPStoreTests.factor()
        let writes: [(String, @Sendable () async throws -> Void)] = [
            ("insert", { try await store.insertFactor(factor) }),
            (
                "judge",
                { _ = try await store.judgeFactor(id: factor.id, matchedStep: 7, maxFailures: 5, now: .now) }
            ),
            (
                "recover",
                {
                    _ = try await store.recoverFactor(
                        id: factor.id, hash: factor.recoveryHashes[0], maxFailures: 5, now: .now)
                }
            ),
            (
                "replace recovery codes",
                { _ = try await store.replaceRecoveryCodes(id: factor.id, hashes: []) }
            ),
            ("delete", { _ = try await store.deleteFactor(id: factor.id) }),
        ]
        for (name, write) in writes {
            let gate = DispatchSemaphore(value: 0)
            let answers = Answers<Result<[Int64], StoreError>>()
            await Self.hold(store, until: gate)
            store.submit(Self.synchronousLevel) { answers.put(0, $0) }
            let written = Task { try await write() }
            // The write is queued behind the first call before the last one is.
            while store.pending.withLock({ $0.count }) < 2 { await Task.yield() }
            store.submit(Self.synchronousLevel) { answers.put(1, $0) }
            gate.signal()
            let all = await answers.all(2)
            try await written.value
            // Written as an ordinary call, the factor's write would share one transaction with both.
            #expect(try all[0]?.get() == [1, 0], "\(name): the call before ran alone")
            #expect(try all[1]?.get() == [1, 0], "\(name): the call after ran alone, back at NORMAL")
        }
        #expect(try await store.factor(id: factor.id) == nil)
        await store.shutdown()
    }

    // MARK: - Redis

    /// Holds the store's only connection with a call that waits on `gate`; returns once it runs.
    private static func hold(_ store: RedisStore, until gate: DispatchSemaphore) async {
        let running = Answers<Bool>()
        store.submit(
            .body { _ throws(StoreError) in
                running.put(0, true)
                gate.wait()
                return .null
            }
        ) { _ in }
        _ = await running.all(1)
    }

    private static func redisStore() throws -> RedisStore {
        let port = try RedisTestServer.port.get()
        return try RedisStore(
            host: "127.0.0.1", port: port, keyPrefix: "otp-test:\(UUID().uuidString):", connections: 1)
    }

    /// A script that answers its argument, unique to this suite so flushing scripts is harmless.
    private static let echo = RedisScript("-- grouped calls test\nreturn ARGV[1]")

    private static func echoCall(_ text: String) -> RedisCall.Work {
        .evaluate(RedisConnection.Evaluation(script: echo, keys: [], arguments: [Array(text.utf8)]))
    }

    @Test("Redis: scripts that wait together go as one pipeline and each gets its own reply")
    func redisPipeline() async throws {
        let store = try Self.redisStore()
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<RedisValue, StoreError>>()
        await Self.hold(store, until: gate)
        for index in 1...40 { store.submit(Self.echoCall("n\(index)")) { answers.put(index, $0) } }
        gate.signal()
        let all = await answers.all(40)
        for index in 1...40 {
            #expect(try all[index]?.get() == .string(Array("n\(index)".utf8)))
        }
        await store.shutdown()
    }

    @Test("Redis: a script Redis forgot in the middle of a pipeline is loaded again and answered")
    func redisForgottenScript() async throws {
        let store = try Self.redisStore()
        let gate = DispatchSemaphore(value: 0)
        let answers = Answers<Result<RedisValue, StoreError>>()
        // The connection believes Redis has the script under a hash Redis does not know: what it
        // meets after a `SCRIPT FLUSH` or a restart of Redis.
        let forgotten = Answers<Result<RedisValue, StoreError>>()
        store.submit(
            .body { connection throws(StoreError) in
                connection.scriptHashes[ObjectIdentifier(Self.echo)] = RedisConnection.LoadedScript(
                    script: Self.echo, hash: Array(repeating: UInt8(ascii: "0"), count: 40))
                return .null
            }
        ) { forgotten.put(0, $0) }
        _ = await forgotten.all(1)
        await Self.hold(store, until: gate)
        for index in 1...10 { store.submit(Self.echoCall("s\(index)")) { answers.put(index, $0) } }
        gate.signal()
        let all = await answers.all(10)
        for index in 1...10 {
            #expect(try all[index]?.get() == .string(Array("s\(index)".utf8)))
        }
        await store.shutdown()
    }

    @Test("Redis: a connection lost under a pipeline fails its scripts, and the next call reconnects")
    func redisLostConnection() async throws {
        let store = try Self.redisStore()
        let warm = Answers<Result<RedisValue, StoreError>>()
        store.submit(Self.echoCall("warm")) { warm.put(0, $0) }
        #expect(try await warm.all(1)[0]?.get() == .string(Array("warm".utf8)))

        let gate = DispatchSemaphore(value: 0)
        let running = Answers<Bool>()
        let peer = Answers<Int32>()
        // Holds the connection, then loses it as a dropped network would: the pipelined scripts
        // are written, and the stream ends instead of their replies.
        store.submit(
            .body { connection throws(StoreError) in
                running.put(0, true)
                gate.wait()
                peer.put(0, connection.loseConnection() ?? -1)
                return .null
            }
        ) { _ in }
        _ = await running.all(1)
        let answers = Answers<Result<RedisValue, StoreError>>()
        for index in 1...10 { store.submit(Self.echoCall("k\(index)")) { answers.put(index, $0) } }
        gate.signal()
        let all = await answers.all(10)
        for index in 1...10 {
            #expect(throws: StoreError.self) { try all[index]?.get() }
        }
        let again = Answers<Result<RedisValue, StoreError>>()
        store.submit(Self.echoCall("again")) { again.put(0, $0) }
        #expect(try await again.all(1)[0]?.get() == .string(Array("again".utf8)))
        let stranded = try #require(await peer.all(1)[0])
        #expect(stranded >= 0)
        close(stranded)
        await store.shutdown()
    }
}
