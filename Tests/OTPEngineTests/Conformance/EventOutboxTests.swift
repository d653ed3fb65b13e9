import Foundation
import OTPCore
import OTPEngine
import Testing

/// The lifecycle-event outbox every store keeps when opened to record events.
@Suite struct EventOutboxTests {
    typealias T = StoreConformanceTests

    static func attempt(_ id: String, right: Bool) -> CheckStep {
        CheckStep(
            id: id, candidateHash: Array(repeating: right ? 0xAB : 0xCD, count: 32), permits: [],
            refundsOnApproval: [])
    }

    /// Claims everything due at `now` and returns the kinds, in order.
    static func claimKinds(
        _ store: any LifecycleEventStore, at now: Date, lease: Double = 60
    ) async throws -> [String] {
        try await store.claimEvents(now: now, leaseUntil: now.addingTimeInterval(lease), limit: 100)
            .map { "\($0.event.verificationID) \($0.event.kind.rawValue)" }
    }

    /// Delivers every due event, one round after another, and returns them in delivery order.
    static func drain(_ store: any LifecycleEventStore, at now: Date) async throws -> [LifecycleEvent] {
        var delivered: [LifecycleEvent] = []
        while true {
            let batch = try await store.claimEvents(
                now: now, leaseUntil: now.addingTimeInterval(60), limit: 100)
            if batch.isEmpty { return delivered }
            for entry in batch {
                try await store.eventDelivered(id: entry.event.id)
                delivered.append(entry.event)
            }
        }
    }

    /// Puts a verification's second code in place at `seconds`, expiring 300 s later.
    static func resendSecondCode(
        _ store: any VerificationStore, _ id: String, at seconds: Double
    ) async throws {
        let lease = ResendLease(token: "t", until: T.at(seconds + 90))
        let begun = try await store.beginResend(id: id, lease: lease, maxSends: 3, now: T.at(seconds))
        guard case .begun = begun else {
            Issue.record("the resend of \(id) was not begun: \(begun)")
            return
        }
        let update = CodeUpdate(
            codeHash: Array(repeating: 0xEE, count: 32), attemptsLeft: 3, sendsUsed: 2,
            expiresAt: T.at(seconds + 300), resendAvailableAt: nil, purgeAt: T.at(90_000))
        let finished = try await store.finishResend(id: id, token: "t", update: update, now: T.at(seconds))
        guard case .done = finished else {
            Issue.record("the resend of \(id) was not finished: \(finished)")
            return
        }
    }

    @Test("a start is pending, with the masked destination and nothing more", arguments: StoreKind.allCases)
    func pending(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        #expect(try await store.insert(T.sample(), claim: nil, now: T.t0) == .inserted)
        #expect(try await store.undeliveredEventCount() == 1)
        let claimed = try await store.claimEvents(now: T.t0, leaseUntil: T.at(60), limit: 10)
        #expect(claimed.count == 1)
        let event = try #require(claimed.first?.event)
        #expect(event.kind == .pending)
        #expect(event.verificationID == "vf_sample")
        #expect(event.channel == .sms)
        #expect(event.to == Destination.mask(channel: .sms, address: "+15555550100"))
        #expect(!event.to.contains("5550100"))
        #expect(event.at == T.t0)
        #expect(event.id == LifecycleEvent.id(.pending, verificationID: "vf_sample", codeNumber: 1))
        try await store.eventDelivered(id: event.id)
        #expect(try await store.undeliveredEventCount() == 0)
        #expect(try await store.claimEvents(now: T.at(1000), leaseUntil: T.at(2000), limit: 10).isEmpty)
    }

    @Test(
        "one verification's events go one at a time, in order; others' alongside",
        arguments: StoreKind.allCases)
    func order(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b", attempts: 1), claim: nil, now: T.at(1))
        _ = try await store.cancel(id: "vf_a", now: T.at(2))
        _ = try await store.check(Self.attempt("vf_b", right: false), now: T.at(3))
        #expect(try await Self.claimKinds(store, at: T.at(4)) == ["vf_a pending", "vf_b pending"])
        #expect(try await Self.claimKinds(store, at: T.at(5)).isEmpty, "leased, and the next waits")
        let delivered = try await Self.drain(store, at: T.at(100))
        #expect(
            delivered.map { "\($0.verificationID) \($0.kind.rawValue)" } == [
                "vf_a pending", "vf_b pending", "vf_a canceled", "vf_b max_attempts_reached",
            ])
        #expect(delivered.map(\.at) == [T.t0, T.at(1), T.at(2), T.at(3)])
    }

    @Test(
        "events mask their destination as the store is told: pending, approved, canceled and expired alike",
        arguments: StoreKind.allCases)
    func maskedAsTold(kind: StoreKind) async throws {
        let masking = DestinationMasking(phoneNumbers: NorthAmericanGrouping())
        let store = try await kind.makeEventStore(masking: masking)
        for id in ["vf_a", "vf_b", "vf_c"] {
            _ = try await store.insert(T.sample(id), claim: nil, now: T.t0)
        }
        _ = try await store.check(Self.attempt("vf_a", right: true), now: T.at(1))
        _ = try await store.cancel(id: "vf_b", now: T.at(2))
        #expect(try await store.noteExpiries(now: T.at(300), limit: 10) == 1)
        let events = try await Self.drain(store, at: T.at(400))
        #expect(
            events.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [
                .approved, .canceled, .expired, .pending, .pending, .pending,
            ])
        // The sample's +15555550100 in the parser's grouping, its last four shown.
        let grouped = "+1 •••-•••-0100"
        #expect(masking.mask(channel: .sms, address: "+15555550100") == grouped)
        #expect(grouped != Destination.mask(channel: .sms, address: "+15555550100"))
        for event in events { #expect(event.to == grouped, "\(event.kind)") }
    }

    @Test("a right code is approved; wrong codes before the last note nothing", arguments: StoreKind.allCases)
    func approved(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample("vf_a", attempts: 3), claim: nil, now: T.t0)
        _ = try await store.check(Self.attempt("vf_a", right: false), now: T.at(1))
        _ = try await store.check(Self.attempt("vf_a", right: true), now: T.at(2))
        _ = try await store.check(Self.attempt("vf_a", right: true), now: T.at(3))
        _ = try await store.cancel(id: "vf_a", now: T.at(4))
        let kinds = try await Self.drain(store, at: T.at(10)).map(\.kind)
        #expect(kinds == [.pending, .approved])
    }

    /// A fresh store of `kind` holding one verification, whose `pending` event is claimed at the
    /// start time, leased for 30 s.
    static func claimedSample(
        _ kind: StoreKind
    ) async throws -> (any VerificationStore, [OutboxEvent]) {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample(), claim: nil, now: T.t0)
        let first = try await store.claimEvents(now: T.t0, leaseUntil: T.at(30), limit: 10)
        try #require(first.count == 1)
        return (store, first)
    }

    @Test(
        "a failed delivery comes back at its retry time with its failures counted; a lapsed lease comes back",
        arguments: StoreKind.allCases)
    func retries(kind: StoreKind) async throws {
        let (store, first) = try await Self.claimedSample(kind)
        #expect(first[0].failures == 0)
        try await store.eventFailed(id: first[0].event.id, retryAt: T.at(10), leasedUntil: T.at(30))
        #expect(try await store.claimEvents(now: T.at(9), leaseUntil: T.at(40), limit: 10).isEmpty)
        let second = try await store.claimEvents(now: T.at(10), leaseUntil: T.at(40), limit: 10)
        #expect(second.map(\.failures) == [1])
        #expect(second.map(\.event) == first.map(\.event))
        // The deliverer died holding the lease: the event is handed out again after it.
        #expect(try await store.claimEvents(now: T.at(39), leaseUntil: T.at(99), limit: 10).isEmpty)
        #expect(try await store.claimEvents(now: T.at(40), leaseUntil: T.at(99), limit: 10).count == 1)
    }

    @Test(
        "a failure reported after the lease lapsed and another deliverer claimed the event changes nothing",
        arguments: StoreKind.allCases)
    func lapsedLeaseFailure(kind: StoreKind) async throws {
        let (store, first) = try await Self.claimedSample(kind)
        // The first deliverer's lease lapses while it delivers; a second claims the event.
        let second = try await store.claimEvents(now: T.at(30), leaseUntil: T.at(90), limit: 10)
        #expect(second.map(\.event) == first.map(\.event))
        // The first one's failure comes late: neither the retry time nor the count is its to set.
        try await store.eventFailed(id: first[0].event.id, retryAt: T.at(31), leasedUntil: T.at(30))
        #expect(
            try await store.claimEvents(now: T.at(31), leaseUntil: T.at(99), limit: 10).isEmpty,
            "still leased to the second deliverer")
        #expect(try await store.claimEvents(now: T.at(89), leaseUntil: T.at(99), limit: 10).isEmpty)
        // The second one's failure is its own: counted once, due at its retry time.
        try await store.eventFailed(id: second[0].event.id, retryAt: T.at(50), leasedUntil: T.at(90))
        #expect(try await store.claimEvents(now: T.at(49), leaseUntil: T.at(99), limit: 10).isEmpty)
        let third = try await store.claimEvents(now: T.at(50), leaseUntil: T.at(110), limit: 10)
        #expect(third.map(\.failures) == [1])
        // A failure reported for an event already delivered changes nothing either.
        try await store.eventDelivered(id: third[0].event.id)
        try await store.eventFailed(id: third[0].event.id, retryAt: T.at(60), leasedUntil: T.at(110))
        #expect(try await store.claimEvents(now: T.at(200), leaseUntil: T.at(260), limit: 10).isEmpty)
        #expect(try await store.undeliveredEventCount() == 0)
    }

    @Test(
        "a sweep's limit counts the events it writes, not the settled verifications it passes over",
        arguments: StoreKind.allCases)
    func sweepLimit(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        for id in ["vf_a", "vf_b", "vf_c", "vf_d"] {
            _ = try await store.insert(T.sample(id), claim: nil, now: T.t0)
        }
        _ = try await store.check(Self.attempt("vf_a", right: true), now: T.at(1))
        _ = try await store.cancel(id: "vf_b", now: T.at(1))
        _ = try await store.check(Self.attempt("vf_c", right: true), now: T.at(1))
        #expect(try await store.noteExpiries(now: T.at(300), limit: 1) == 1, "vf_d's, past the three settled")
        #expect(try await store.noteExpiries(now: T.at(300), limit: 1) == 0)
    }

    @Test(
        "a code past its lifetime is noted expired once, by a sweep, without any request",
        arguments: StoreKind.allCases)
    func expired(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b"), claim: nil, now: T.t0)
        _ = try await store.cancel(id: "vf_b", now: T.at(5))
        #expect(try await store.noteExpiries(now: T.at(299), limit: 10) == 0)
        #expect(try await store.noteExpiries(now: T.at(300), limit: 10) == 1)
        #expect(try await store.noteExpiries(now: T.at(400), limit: 10) == 0)
        let events = try await Self.drain(store, at: T.at(400))
        #expect(
            events.map { "\($0.verificationID) \($0.kind.rawValue)" }.sorted() == [
                "vf_a expired", "vf_a pending", "vf_b canceled", "vf_b pending",
            ])
        let expired = try #require(events.first { $0.kind == .expired })
        #expect(expired.at == T.at(300))
        #expect(try await store.noteExpiries(now: T.at(500), limit: 10) == 0, "delivered ids stay known")
    }

    @Test("a resent code expires on its own, with its own id", arguments: StoreKind.allCases)
    func expiredAfterResend(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        #expect(try await store.noteExpiries(now: T.at(300), limit: 10) == 1)
        try await Self.resendSecondCode(store, "vf_a", at: 310)
        #expect(try await store.noteExpiries(now: T.at(609), limit: 10) == 0)
        #expect(try await store.noteExpiries(now: T.at(610), limit: 10) == 1)
        let ids = try await Self.drain(store, at: T.at(700)).filter { $0.kind == .expired }.map(\.id)
        #expect(
            ids == [
                LifecycleEvent.id(.expired, verificationID: "vf_a", codeNumber: 1),
                LifecycleEvent.id(.expired, verificationID: "vf_a", codeNumber: 2),
            ])
    }

    @Test(
        "a code that expired before the sweep came is noted expired when a resend replaces it",
        arguments: StoreKind.allCases)
    func expiredBeforeResend(kind: StoreKind) async throws {
        let store = try await kind.makeEventStore()
        _ = try await store.insert(T.sample("vf_a"), claim: nil, now: T.t0)
        _ = try await store.insert(T.sample("vf_b"), claim: nil, now: T.t0)
        // Both resent with no sweep in between: vf_a after its code expired at 300, vf_b before.
        try await Self.resendSecondCode(store, "vf_a", at: 310)
        try await Self.resendSecondCode(store, "vf_b", at: 200)
        // The sweep finds nothing left to note for the replaced codes.
        #expect(try await store.noteExpiries(now: T.at(320), limit: 10) == 0)
        let events = try await Self.drain(store, at: T.at(320))
        #expect(
            events.map { "\($0.verificationID) \($0.kind.rawValue)" }.sorted() == [
                "vf_a expired", "vf_a pending", "vf_b pending",
            ])
        let expired = try #require(events.first { $0.kind == .expired })
        #expect(expired.id == LifecycleEvent.id(.expired, verificationID: "vf_a", codeNumber: 1))
        #expect(expired.at == T.at(300))
        #expect(expired.to == Destination.mask(channel: .sms, address: "+15555550100"))
        // The new codes expire on their own.
        #expect(try await store.noteExpiries(now: T.at(610), limit: 10) == 2)
    }

    @Test("a store not opened to record events keeps none", arguments: StoreKind.allCases)
    func off(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.insert(T.sample(), claim: nil, now: T.t0)
        _ = try await store.cancel(id: "vf_sample", now: T.at(1))
        #expect(try await store.noteExpiries(now: T.at(1000), limit: 10) == 0)
        #expect(try await store.undeliveredEventCount() == 0)
    }

    @Test(
        "two deliverers claiming at once never both get an event before its lease lapses",
        arguments: StoreKind.allCases)
    func concurrentClaims(kind: StoreKind) async throws {
        let stores = try await kind.makeEventStores(count: 2)
        for index in 0..<40 {
            _ = try await stores[0].insert(T.sample("vf_\(index)"), claim: nil, now: T.t0)
        }
        let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
            for store in stores {
                group.addTask {
                    var ids: [String] = []
                    for _ in 0..<5 {
                        ids += try await store.claimEvents(now: T.at(1), leaseUntil: T.at(60), limit: 5)
                            .map(\.event.id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(claimed.count == 40)
        #expect(Set(claimed).count == 40)
    }
}

/// Groups a North American number as `+1 NXX-NXX-XXXX`, as a numbering-plan parser would; reads
/// nothing.
private struct NorthAmericanGrouping: PhoneNumberParser {
    func parse(_ text: String, region: String?) -> PhoneNumber? { nil }

    func international(e164: String) -> String? {
        let digits = Array(e164.dropFirst())
        guard digits.count == 11, digits.first == "1" else { return nil }
        return "+1 \(String(digits[1..<4]))-\(String(digits[4..<7]))-\(String(digits[7...]))"
    }
}
