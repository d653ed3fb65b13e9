import Foundation
import OTPCore
import OTPEngine
import Testing

/// The support views every store must give alike: the search by destination and the delivery attempts.
@Suite struct SupportSearchTests {
    static let destination = "+15555550100"

    static func at(_ seconds: Double) -> Date { StoreConformanceTests.at(seconds) }

    /// A record to the destination created at `created` seconds, pending unless changed.
    static func record(
        _ id: String, created: Double, to destination: String = destination,
        _ change: (inout VerificationRecord) -> Void = { _ in }
    ) -> VerificationRecord {
        var record = StoreConformanceTests.sample(id)
        record.destination = destination
        record.createdAt = at(created)
        record.expiresAt = at(created + 300)
        record.purgeAt = at(created + 1_000)
        change(&record)
        return record
    }

    /// Seven verifications to the destination and two to others.
    ///
    /// One of each status, and two created in the same millisecond. At `now` (60 s) the answer,
    /// newest first, is `vf_g vf_f vf_e vf_d vf_c vf_b vf_a`.
    static func seeded(_ store: any VerificationStore) async throws {
        let records = [
            record("vf_a", created: 0),
            record("vf_b", created: 10) { $0.state = .approved },
            record("vf_c", created: 20) { $0.state = .canceled },
            record("vf_d", created: 30) { $0.attemptsLeft = 0 },
            record("vf_e", created: 40) { $0.expiresAt = at(50) },
            record("vf_f", created: 50),
            record("vf_g", created: 50),
            record("vf_x", created: 45, to: "+15555550199"),
            record("vf_y", created: 45, to: "15555550100"),
        ]
        for record in records {
            #expect(try await store.insert(record, claim: nil, now: record.createdAt) == .inserted)
        }
    }

    static let now = at(60)

    static func ids(
        _ store: any VerificationStore, status: VerificationStatus? = nil, since: Date? = nil,
        after: VerificationCursor? = nil, limit: Int = 100
    ) async throws -> [String] {
        let query = VerificationQuery(
            destination: destination, status: status, since: since, after: after, limit: limit)
        return try await store.verifications(matching: query, now: now).map(\.id)
    }

    @Test(
        "a search finds one destination's verifications exactly, newest first, and whole",
        arguments: StoreKind.allCases)
    func newestFirst(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await Self.seeded(store)
        #expect(try await Self.ids(store) == ["vf_g", "vf_f", "vf_e", "vf_d", "vf_c", "vf_b", "vf_a"])
        let query = VerificationQuery(destination: Self.destination, limit: 1)
        let found = try await store.verifications(matching: query, now: Self.now)
        #expect(found == [try #require(try await store.record(id: "vf_g"))])
        let nobody = VerificationQuery(destination: "+15555550111", limit: 10)
        #expect(try await store.verifications(matching: nobody, now: Self.now).isEmpty)
    }

    @Test(
        "a search keeps the status asked for, as the API reports it at the time",
        arguments: StoreKind.allCases)
    func status(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await Self.seeded(store)
        #expect(try await Self.ids(store, status: .pending) == ["vf_g", "vf_f", "vf_a"])
        #expect(try await Self.ids(store, status: .approved) == ["vf_b"])
        #expect(try await Self.ids(store, status: .canceled) == ["vf_c"])
        #expect(try await Self.ids(store, status: .locked) == ["vf_d"])
        #expect(try await Self.ids(store, status: .expired) == ["vf_e"])
    }

    @Test("a search keeps verifications created at or after `since`", arguments: StoreKind.allCases)
    func since(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await Self.seeded(store)
        #expect(try await Self.ids(store, since: Self.at(20)) == ["vf_g", "vf_f", "vf_e", "vf_d", "vf_c"])
        #expect(try await Self.ids(store, status: .pending, since: Self.at(20)) == ["vf_g", "vf_f"])
        #expect(try await Self.ids(store, since: Self.at(50.001)).isEmpty)
    }

    @Test(
        "a cursor pages through the answer, across verifications created in the same millisecond",
        arguments: StoreKind.allCases)
    func paging(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await Self.seeded(store)
        var pages: [[String]] = []
        var cursor: VerificationCursor?
        repeat {
            let query = VerificationQuery(destination: Self.destination, after: cursor, limit: 3)
            let page = try await store.verifications(matching: query, now: Self.now)
            pages.append(page.map(\.id))
            cursor = page.count == 3 ? page.last.map(VerificationCursor.init(after:)) : nil
        } while cursor != nil
        #expect(pages == [["vf_g", "vf_f", "vf_e"], ["vf_d", "vf_c", "vf_b"], ["vf_a"]])
        let afterG = VerificationCursor(
            createdAtMilliseconds: StoreTime.milliseconds(Self.at(50)), id: "vf_g")
        #expect(try await Self.ids(store, after: afterG, limit: 2) == ["vf_f", "vf_e"])
        let afterF = VerificationCursor(
            createdAtMilliseconds: StoreTime.milliseconds(Self.at(50)), id: "vf_f")
        #expect(try await Self.ids(store, status: .pending, after: afterF) == ["vf_a"])
    }

    @Test(
        "delivery attempts are kept in order with their verification, dropped for an unknown one, and purged with it",
        arguments: StoreKind.allCases)
    func attempts(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        try await Self.seeded(store)
        let sent = DeliveryAttempt(
            verificationID: "vf_a", at: Self.at(0), channel: .sms, step: .start, outcome: .sent,
            messageID: "SM0123456789abcdef")
        let failed = DeliveryAttempt(
            verificationID: "vf_a", at: Self.at(35), channel: .sms, step: .resend, outcome: .failed,
            reason: "SMS delivery: the provider answered 502")
        let other = DeliveryAttempt(
            verificationID: "vf_b", at: Self.at(10), channel: .sms, step: .start, outcome: .sent)
        for attempt in [sent, other, failed] { try await store.noteDelivery(attempt) }
        try await store.noteDelivery(
            DeliveryAttempt(
                verificationID: "vf_missing", at: Self.at(1), channel: .email, step: .start, outcome: .sent))
        #expect(try await store.deliveries(id: "vf_a") == [sent, failed])
        #expect(try await store.deliveries(id: "vf_b") == [other])
        #expect(try await store.deliveries(id: "vf_missing").isEmpty)
        #expect(try await store.deliveries(id: "vf_c").isEmpty)

        // vf_a goes at 1,000 s; vf_b stays until 1,010 s.
        #expect(try await store.purgeExpired(now: Self.at(1_000)) == 1)
        #expect(try await store.deliveries(id: "vf_a").isEmpty)
        #expect(try await store.deliveries(id: "vf_b") == [other])
        #expect(!(try await Self.ids(store).contains("vf_a")))
        // A verification stored again under a purged id starts with no attempts.
        #expect(
            try await store.insert(Self.record("vf_a", created: 1_000), claim: nil, now: Self.at(1_000))
                == .inserted)
        #expect(try await store.deliveries(id: "vf_a").isEmpty)
    }
}
