import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPRedis

/// The Redis store's support keys: the index per destination and the attempts per verification
/// live as long as the records they serve, and go with them.
@Suite struct RedisSupportKeysTests {
    static func integer(_ store: RedisStore, _ arguments: String...) async throws -> Int64? {
        let reply = try await store.run { connection throws(StoreError) in try connection.command(arguments) }
        if case .integer(let value) = reply { return value }
        return nil
    }

    @Test(
        "the destination's index and the attempts expire with the record, move with a resend, and go at purge"
    )
    func lifetimes() async throws {
        let store = try RedisTestServer.makeStores(count: 1, recordsEvents: false)[0]
        defer { Task { await store.shutdown() } }
        let t0 = StoreConformanceTests.t0
        let at = StoreConformanceTests.at
        let record = StoreConformanceTests.sample("vf_ttl")
        #expect(try await store.insert(record, claim: nil, now: t0) == .inserted)
        try await store.noteDelivery(
            DeliveryAttempt(verificationID: "vf_ttl", at: t0, channel: .sms, step: .start, outcome: .sent))
        let index = store.destinationIndex(record.destination)
        let attempts = store.deliveriesKey("vf_ttl")
        let purgeIn = StoreTime.milliseconds(record.purgeAt) - StoreTime.milliseconds(t0)
        // The record outlives its purge time by the grace, so the purge that deletes it still
        // reads its destination (Redis would otherwise drop it first, and its id would stay in the
        // destination's index); its index entry and attempts live as long.
        let grace = Int64(RedisScripts.recordGraceMilliseconds)
        for key in [index, attempts, store.recordKey("vf_ttl")] {
            let ttl = try #require(try await Self.integer(store, "PTTL", key))
            #expect(ttl > purgeIn + grace - 60_000 && ttl <= purgeIn + grace, "\(key)")
        }

        // A resend moves the purge time later; the index and the attempts follow it.
        let lease = ResendLease(token: "tok", until: at(120))
        _ = try await store.beginResend(id: "vf_ttl", lease: lease, maxSends: 5, now: at(60))
        let update = CodeUpdate(
            codeHash: [1], attemptsLeft: 3, sendsUsed: 2, expiresAt: at(360), resendAvailableAt: nil,
            purgeAt: at(200_000))
        _ = try await store.finishResend(id: "vf_ttl", token: "tok", update: update, now: at(60))
        let later = StoreTime.milliseconds(at(200_000)) - StoreTime.milliseconds(at(60))
        for key in [index, attempts, store.recordKey("vf_ttl")] {
            let ttl = try #require(try await Self.integer(store, "PTTL", key))
            #expect(ttl > later + grace - 60_000 && ttl <= later + grace, "\(key)")
        }

        // A purged record leaves its destination's index and takes its attempts.
        let gone = StoreConformanceTests.sample("vf_gone")
        var short = gone
        short.purgeAt = at(1_000)
        #expect(try await store.insert(short, claim: nil, now: t0) == .inserted)
        try await store.noteDelivery(
            DeliveryAttempt(verificationID: "vf_gone", at: t0, channel: .sms, step: .start, outcome: .sent))
        #expect(try await Self.integer(store, "ZCARD", index) == 2)
        #expect(try await store.purgeExpired(now: at(1_000)) == 1)
        #expect(try await Self.integer(store, "ZCARD", index) == 1)
        #expect(try await Self.integer(store, "EXISTS", store.deliveriesKey("vf_gone")) == 0)
        #expect(try await Self.integer(store, "EXISTS", attempts) == 1)
    }

    @Test(
        "a resend past the purge time, before a purge ran, keeps the record searchable and its attempts, as memory does"
    )
    func resendPastPurgeTime() async throws {
        let store = try RedisTestServer.makeStores(count: 1, recordsEvents: false)[0]
        defer { Task { await store.shutdown() } }
        let t0 = StoreConformanceTests.t0
        let at = StoreConformanceTests.at
        var record = StoreConformanceTests.sample("vf_late", resendAt: nil)
        record.purgeAt = at(1)
        #expect(try await store.insert(record, claim: nil, now: t0) == .inserted)
        try await store.noteDelivery(
            DeliveryAttempt(verificationID: "vf_late", at: t0, channel: .sms, step: .start, outcome: .sent))
        // The index went with its last purge time, as Redis would drop it then.
        _ = try await Self.integer(store, "DEL", store.destinationIndex(record.destination))
        // A resend that failed past the purge time is noted, then one that worked.
        try await store.noteDelivery(
            DeliveryAttempt(
                verificationID: "vf_late", at: at(5), channel: .sms, step: .resend, outcome: .failed,
                reason: "timeout"))
        let lease = ResendLease(token: "late", until: at(60))
        _ = try await store.beginResend(id: "vf_late", lease: lease, maxSends: 5, now: at(6))
        let update = CodeUpdate(
            codeHash: [1], attemptsLeft: 3, sendsUsed: 2, expiresAt: at(306), resendAvailableAt: nil,
            purgeAt: at(86_706))
        guard
            case .done = try await store.finishResend(
                id: "vf_late", token: "late", update: update, now: at(6))
        else {
            Issue.record("the resend did not finish")
            return
        }
        try await store.noteDelivery(
            DeliveryAttempt(
                verificationID: "vf_late", at: at(6), channel: .sms, step: .resend, outcome: .sent))
        let found = try await store.verifications(
            matching: VerificationQuery(destination: record.destination, limit: 10), now: at(7))
        #expect(found.map(\.id) == ["vf_late"])
        #expect(try await store.deliveries(id: "vf_late").map(\.outcome) == [.sent, .failed, .sent])
        let attemptsTTL = try #require(try await Self.integer(store, "PTTL", store.deliveriesKey("vf_late")))
        #expect(attemptsTTL > StoreTime.milliseconds(at(86_706)) - StoreTime.milliseconds(at(6)))
    }

    @Test(
        "an event whose record of it is gone leaves its verification's queue instead of stalling every claim")
    func missingEvent() async throws {
        typealias T = StoreConformanceTests
        let store = try RedisTestServer.makeStores(count: 1, recordsEvents: true)[0]
        defer { Task { await store.shutdown() } }
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b"), claim: nil, now: T.at(1))
        _ = try await store.cancel(id: "vf_a", now: T.at(2))
        #expect(try await store.undeliveredEventCount() == 3)
        let lost = LifecycleEvent.id(.pending, verificationID: "vf_a", codeNumber: 1)
        #expect(try await Self.integer(store, "DEL", store.prefix + "ev:" + lost) == 1)
        let first = try await store.claimEvents(now: T.at(3), leaseUntil: T.at(60), limit: 10)
        #expect(first.map(\.event.kind) == [.pending])
        #expect(first.map(\.event.verificationID) == ["vf_b"])
        #expect(try await store.undeliveredEventCount() == 2)
        let next = try await store.claimEvents(now: T.at(4), leaseUntil: T.at(60), limit: 10)
        #expect(next.map(\.event.verificationID) == ["vf_a"])
        #expect(next.map(\.event.kind) == [.canceled])

        // A count that is not a number is an error, not an empty backlog.
        _ = try await store.run { connection throws(StoreError) in
            try connection.command("SET", store.prefix + "evn", "lots")
        }
        await #expect(throws: StoreError.self) { try await store.undeliveredEventCount() }
    }
}
