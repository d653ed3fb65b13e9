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

    /// A store that records events, with ways to give one event a kind this version does not know
    /// and to read that event's failures and when it is next due (milliseconds).
    struct Subject {
        let store: any VerificationStore
        let corrupt: (String) async throws -> Void
        let probe: (String) async throws -> (failures: Int64?, due: Int64?)
    }

    static func subject(_ kind: Kind) async throws -> Subject {
        switch kind {
        case .sqlite:
            let store = try SQLiteStore(path: temporaryDirectory() + "/otp.sqlite3", recordsEvents: true)
            return Subject(
                store: store,
                corrupt: { id in
                    _ = try await store.run { (db: SQLiteConnection) throws(StoreError) in
                        try db.query(
                            "UPDATE otp_events SET kind = 'from_the_future' WHERE id = ?", [.text(id)])
                    }
                },
                probe: { id in
                    let row = try await store.run { (db: SQLiteConnection) throws(StoreError) in
                        try db.query("SELECT failures, due_at FROM otp_events WHERE id = ?", [.text(id)])
                            .first
                    }
                    return (row?[0].integer, row?[1].integer)
                })
        case .redis:
            let store = try RedisTestServer.makeStores(count: 1, recordsEvents: true)[0]
            func integer(_ arguments: String...) async throws -> Int64? {
                let reply = try await store.run { connection throws(StoreError) in
                    try connection.command(arguments)
                }
                if case .string(let bytes) = reply { return Int64(String(decoding: bytes, as: UTF8.self)) }
                return nil
            }
            return Subject(
                store: store,
                corrupt: { id in
                    _ = try await store.run { connection throws(StoreError) in
                        try connection.command("HSET", store.prefix + "ev:" + id, "k", "from_the_future")
                    }
                },
                probe: { id in
                    let verification = String(id.dropFirst("evt_".count).prefix { $0 != "." })
                    return (
                        try await integer("HGET", store.prefix + "ev:" + id, "f"),
                        try await integer("ZSCORE", store.prefix + "evdue", verification)
                    )
                })
        case .postgres:
            let store = try #require(
                try await PostgresTestServer.makeStores(count: 1, recordsEvents: true)[0] as? PostgresStore)
            return Subject(
                store: store,
                corrupt: { id in
                    _ = try await store.run { (db: PostgresConnection) throws(StoreError) -> Int in
                        try db.open()
                        return try db.query(
                            "UPDATE otp_events SET kind = 'from_the_future' WHERE id = $1", [.text(id)]
                        ).affected
                    }
                },
                probe: { id in
                    try await store.run { (db: PostgresConnection) throws(StoreError) -> (Int64?, Int64?) in
                        try db.open()
                        let row = try db.query(
                            "SELECT failures, due_at FROM otp_events WHERE id = $1", [.text(id)]
                        ).rows.first
                        return (row?.integer(0), row?.integer(1))
                    }
                })
        }
    }

    @Test(
        "an event of a kind this version cannot read waits a day, counted, while the others are delivered",
        arguments: Kind.allCases)
    func unreadable(kind: Kind) async throws {
        let subject = try await Self.subject(kind)
        let store = subject.store
        defer { Task { await store.shutdown() } }
        let unreadable = LifecycleEvent.id(.pending, verificationID: "vf_a", codeNumber: 1)
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b"), claim: nil, now: T.at(1))
        _ = try await store.cancel(id: "vf_a", now: T.at(2))
        try await subject.corrupt(unreadable)

        // vf_b's event goes; vf_a's unreadable one is not handed out, nor its later one.
        let first = try await store.claimEvents(now: T.at(3), leaseUntil: T.at(60), limit: 10)
        #expect(first.map(\.event.verificationID) == ["vf_b"])
        for entry in first { try await store.eventDelivered(id: entry.event.id) }
        #expect(try await store.undeliveredEventCount() == 2, "the unreadable event and the one behind it")
        // Counted as a failure, and due again a day after it was read.
        let waiting = try await subject.probe(unreadable)
        #expect(waiting.failures == 1)
        #expect(waiting.due == StoreTime.milliseconds(T.at(3 + 86_400)))
        #expect(try await store.claimEvents(now: T.at(3_600), leaseUntil: T.at(3_660), limit: 10).isEmpty)

        // A day on it is read again: still unreadable, it waits again; nothing is lost.
        #expect(try await store.claimEvents(now: T.at(86_403), leaseUntil: T.at(86_463), limit: 10).isEmpty)
        #expect(try await store.undeliveredEventCount() == 2)
        let again = try await subject.probe(unreadable)
        #expect(again.failures == 2)
        #expect(again.due == StoreTime.milliseconds(T.at(86_403 + 86_400)))
    }
}
