import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPPostgres
@testable import OTPRedis
@testable import OTPSQLite

/// An event row a store cannot read (a kind written by another version, before a rollback) must
/// not stop the delivery of every other verification's events.
@Suite struct UnreadableEventTests {
    typealias T = StoreConformanceTests

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, redis, postgres
        var testDescription: String { rawValue }
    }

    /// A store that records events, and a way to give one event a kind this version does not know.
    static func store(_ kind: Kind) async throws -> (any VerificationStore, (String) async throws -> Void) {
        switch kind {
        case .sqlite:
            let store = try SQLiteStore(path: temporaryDirectory() + "/otp.sqlite3", recordsEvents: true)
            return (
                store,
                { id in
                    _ = try await store.run { (db: SQLiteConnection) throws(StoreError) in
                        try db.query(
                            "UPDATE otp_events SET kind = 'from_the_future' WHERE id = ?", [.text(id)])
                    }
                }
            )
        case .redis:
            let store = try #require(
                try RedisTestServer.makeStores(count: 1, recordsEvents: true)[0] as? RedisStore)
            return (
                store,
                { id in
                    _ = try await store.run { connection throws(StoreError) in
                        try connection.command("HSET", store.prefix + "ev:" + id, "k", "from_the_future")
                    }
                }
            )
        case .postgres:
            let store = try #require(
                try await PostgresTestServer.makeStores(count: 1, recordsEvents: true)[0] as? PostgresStore)
            return (
                store,
                { id in
                    _ = try await store.run { (db: PostgresConnection) throws(StoreError) -> Int in
                        try db.open()
                        return try db.query(
                            "UPDATE otp_events SET kind = 'from_the_future' WHERE id = $1", [.text(id)]
                        ).affected
                    }
                }
            )
        }
    }

    @Test(
        "an event of a kind this version cannot read waits a day, counted, while the others are delivered",
        arguments: Kind.allCases)
    func unreadable(kind: Kind) async throws {
        let (store, corrupt) = try await Self.store(kind)
        defer { Task { await store.shutdown() } }
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b"), claim: nil, now: T.at(1))
        _ = try await store.cancel(id: "vf_a", now: T.at(2))
        try await corrupt(LifecycleEvent.id(.pending, verificationID: "vf_a", codeNumber: 1))

        // vf_b's event goes; vf_a's unreadable one is not handed out, nor its later one.
        let first = try await store.claimEvents(now: T.at(3), leaseUntil: T.at(60), limit: 10)
        #expect(first.map(\.event.verificationID) == ["vf_b"])
        for entry in first { try await store.eventDelivered(id: entry.event.id) }
        #expect(try await store.undeliveredEventCount() == 2, "the unreadable event and the one behind it")
        #expect(try await store.claimEvents(now: T.at(3_600), leaseUntil: T.at(3_660), limit: 10).isEmpty)

        // A day on it is read again: still unreadable, it waits again; nothing is lost.
        #expect(try await store.claimEvents(now: T.at(86_403), leaseUntil: T.at(86_463), limit: 10).isEmpty)
        #expect(try await store.undeliveredEventCount() == 2)
    }
}
