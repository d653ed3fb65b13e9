import Foundation
import OTPEngine
import Testing

@testable import OTPPostgres

/// The connection's pipeline (several statements in one round trip, each prepared once) and the
/// two-round-trip transaction that starts and checks run in.
@Suite struct PostgresPipelineTests {
    /// A fresh store with one connection, so every call below meets the same session.
    static func store() throws(StoreError) -> PostgresStore {
        try PostgresStoreTests.store(connections: 1)
    }

    /// Runs `body` on the store's one connection.
    static func on<Value: Sendable>(
        _ store: PostgresStore, _ body: @escaping @Sendable (PostgresConnection) throws(StoreError) -> Value
    ) async throws(StoreError) -> Value {
        try await store.run { (db: PostgresConnection) throws(StoreError) in
            try db.open()
            return try body(db)
        }
    }

    @Test("a pipeline answers each statement in order and prepares each text once per session")
    func answersInOrder() async throws {
        let store = try Self.store()
        let statements = [
            PostgresStatement("SELECT $1::bigint + 1", [.integer(41)]),
            PostgresStatement("SELECT $1::text || 'b'", [.text("a")]),
            PostgresStatement("SELECT $1::bytea", [.bytes([0, 1, 255])]),
        ]
        let first = try await Self.on(store) { db throws(StoreError) in try db.pipeline(statements) }
        #expect(first.count == 3)
        #expect(first[0].rows.first?.integer(0) == 42)
        #expect(first[1].rows.first?.text(0) == "ab")
        #expect(first[2].rows.first?.bytes(0) == [0, 1, 255])
        let counting = "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'otp_%'"
        let prepared = try await Self.on(store) { db throws(StoreError) in
            try db.query(counting).rows.first?.integer(0)
        }
        #expect(prepared == 3)
        let again = try await Self.on(store) { db throws(StoreError) in try db.pipeline(statements) }
        #expect(again[0].rows.first?.integer(0) == 42)
        let preparedAgain = try await Self.on(store) { db throws(StoreError) in
            try db.query(counting).rows.first?.integer(0)
        }
        #expect(preparedAgain == 3)
        await store.shutdown()
    }

    @Test(
        "a failing statement throws the server's message and nothing of the pipeline stays; the session goes on"
    )
    func failureMidway() async throws {
        let store = try Self.store()
        try await store.executeForTesting("CREATE TABLE pipeline_rows (n bigint)")
        let failure = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await Self.on(store) { db throws(StoreError) in
                try db.pipeline([
                    PostgresStatement("INSERT INTO pipeline_rows VALUES ($1)", [.integer(1)]),
                    PostgresStatement("SELECT 1 / $1::bigint", [.integer(0)]),
                    PostgresStatement("INSERT INTO pipeline_rows VALUES ($1)", [.integer(2)]),
                ])
            }
        }
        #expect(failure?.reason.contains("division by zero") == true)
        // A pipeline without BEGIN is one implicit transaction up to its sync point: the first
        // insert is rolled back with the failure, and the third never ran.
        let rows = try await Self.on(store) { db throws(StoreError) in
            try db.query("SELECT n FROM pipeline_rows ORDER BY n").rows.compactMap { $0.integer(0) }
        }
        #expect(rows.isEmpty)
        await store.shutdown()
    }

    @Test(
        "the two-round-trip transaction commits its writes, and rolls back when a write or the judging fails")
    func transactionCommitsOrRollsBack() async throws {
        let store = try Self.store()
        try await store.executeForTesting("CREATE TABLE pipeline_counts (k text PRIMARY KEY, n bigint)")
        try await store.executeForTesting("INSERT INTO pipeline_counts VALUES ('a', 1)")
        let read = [PostgresStatement("SELECT n FROM pipeline_counts WHERE k = $1 FOR UPDATE", [.text("a")])]
        let committed = try await Self.on(store) { db throws(StoreError) in
            try db.transaction(reading: read) { (results) throws(StoreError) in
                let n = results[0].rows.first?.integer(0) ?? -1
                return (
                    [PostgresStatement("UPDATE pipeline_counts SET n = $1 WHERE k = 'a'", [.integer(n + 1)])],
                    n
                )
            }
        }
        #expect(committed == 1)

        let badWrite = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await Self.on(store) { db throws(StoreError) in
                try db.transaction(reading: read) { (_) throws(StoreError) in
                    (
                        [
                            PostgresStatement("UPDATE pipeline_counts SET n = 100 WHERE k = 'a'"),
                            PostgresStatement("INSERT INTO pipeline_counts VALUES ('a', 0)"),
                        ], ()
                    )
                }
            }
        }
        #expect(badWrite?.reason.contains("duplicate key") == true)

        let refused = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await Self.on(store) { db throws(StoreError) in
                try db.transaction(reading: read) { (_) throws(StoreError) -> ([PostgresStatement], Void) in
                    throw StoreError("judging failed")
                }
            }
        }
        #expect(refused?.reason == "judging failed")

        // Neither failed transaction left a change or a lock: the row reads 2, and can be locked again.
        let after = try await Self.on(store) { db throws(StoreError) in
            try db.transaction(reading: read) { (results) throws(StoreError) in
                ([], results[0].rows.first?.integer(0))
            }
        }
        #expect(after == 2)
        await store.shutdown()
    }

    @Test("a statement the server cannot prepare fails the pipeline, and is prepared again when fixed")
    func badStatement() async throws {
        let store = try Self.store()
        let failure = await PostgresStoreTests.failure { () async throws(StoreError) in
            try await Self.on(store) { db throws(StoreError) in
                try db.pipeline([PostgresStatement("SELEC 1"), PostgresStatement("SELECT 2")])
            }
        }
        #expect(failure?.reason.contains("syntax error") == true)
        let fixed = try await Self.on(store) { db throws(StoreError) in
            try db.pipeline([PostgresStatement("SELECT 2")])
        }
        #expect(fixed.first?.rows.first?.integer(0) == 2)
        await store.shutdown()
    }
}
