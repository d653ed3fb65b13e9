import Foundation
import OTPCore
import OTPEngine
import Testing

/// Each send's delivery attempt, as the verifier notes it, and the support search over them.
@Suite struct DeliveryAttemptTests {
    /// A sender that answers a receipt naming each message, and fails while told to.
    actor ReceiptSender: CodeSender {
        private(set) var count = 0
        var failing = false

        func setFailing(_ value: Bool) { failing = value }

        func send(_ message: OutgoingMessage) async throws(DeliveryError) {
            _ = try await sendWithReceipt(message)
        }

        func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
            if failing { throw DeliveryError("SMS delivery: the provider answered 502") }
            count += 1
            return DeliveryReceipt(messageID: "SM\(count)")
        }
    }

    static func verifier(
        store: any VerificationStore = MemoryStore(), sender: any CodeSender, clock: ManualClock,
        policy: Policy = relaxedPolicy()
    ) -> Verifier {
        Verifier(store: store, sender: sender, policy: policy, secret: testSecret, now: { clock.date })
    }

    @Test("a start and a resend each note a sent attempt with the provider's message id, at the send's time")
    func sent() async throws {
        let clock = ManualClock()
        let sender = ReceiptSender()
        let verifier = Self.verifier(sender: sender, clock: clock)
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        let id = started.verification.id
        let first = clock.date
        clock.advance(by: .seconds(30))
        _ = try await verifier.resend(id: id, clientAddress: "192.0.2.1")
        #expect(
            try await verifier.deliveries(id: id) == [
                DeliveryAttempt(
                    verificationID: id, at: first, channel: .sms, step: .start, outcome: .sent,
                    messageID: "SM1"),
                DeliveryAttempt(
                    verificationID: id, at: clock.date, channel: .sms, step: .resend, outcome: .sent,
                    messageID: "SM2"),
            ])
    }

    @Test("a channel router passes its sender's receipt on to the attempt")
    func throughRouter() async throws {
        let clock = ManualClock()
        let router = ChannelRouter(routes: [.sms: ReceiptSender()])
        let verifier = Self.verifier(sender: router, clock: clock)
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect(try await verifier.deliveries(id: started.verification.id).map(\.messageID) == ["SM1"])
    }

    @Test(
        "a failed start and a failed resend each note a failed attempt with the sender's reason and no code")
    func failed() async throws {
        let clock = ManualClock()
        let sender = ReceiptSender()
        let store = MemoryStore()
        let verifier = Self.verifier(store: store, sender: sender, clock: clock)
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        let id = started.verification.id
        clock.advance(by: .seconds(30))
        await sender.setFailing(true)
        let resend = await verifierError { () async throws(VerifierError) in
            try await verifier.resend(id: id, clientAddress: "192.0.2.1")
        }
        #expect(resend?.kind == .deliveryFailed)
        let attempts = try await verifier.deliveries(id: id)
        #expect(attempts.map(\.outcome) == [.sent, .failed])
        #expect(attempts.last?.step == .resend)
        #expect(attempts.last?.reason == "SMS delivery: the provider answered 502")
        #expect(attempts.last?.messageID == nil)

        let refused = await verifierError { () async throws(VerifierError) in
            _ = try await verifier.start(StartRequest(to: "a@example.org", clientAddress: "192.0.2.1"))
        }
        #expect(refused?.kind == .deliveryFailed)
        let page = try await verifier.verifications(to: "a@example.org")
        let canceled = try #require(page.items.first)
        #expect(canceled.verification.status == .canceled)
        #expect(
            canceled.deliveries == [
                DeliveryAttempt(
                    verificationID: canceled.verification.id, at: clock.date, channel: .email, step: .start,
                    outcome: .failed, reason: "SMS delivery: the provider answered 502")
            ])
    }

    @Test(
        "a start on the memory store with a sender that sends inline has its attempt noted before it answers")
    func inline() throws {
        let store = MemoryStore()
        let sender = ImmediateStartTests.ImmediateSender()
        let verifier = Verifier(store: store, sender: sender, policy: relaxedPolicy(), secret: testSecret)
        let result = try #require(
            ImmediateStartTests.inline(verifier, StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        )
        let id = try result.get().verification.id
        let attempts = try store.deliveries(id: id)
        #expect(attempts.map(\.outcome) == [.sent])
        #expect(attempts.first?.messageID == nil)
    }

    @Test("a start whose inline send is refused notes the failed attempt before it answers")
    func inlineRefused() async throws {
        let store = MemoryStore()
        let sender = ImmediateStartTests.ImmediateSender(refusing: ["+15555550100"])
        let verifier = Verifier(store: store, sender: sender, policy: relaxedPolicy(), secret: testSecret)
        let result = await ImmediateStartTests.result(
            verifier, StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect(ImmediateStartTests.kind(of: result) == .deliveryFailed)
        let id = try #require(sender.refusedIDs.first)
        let attempts = try store.deliveries(id: id)
        #expect(attempts.map(\.outcome) == [.failed])
        #expect(attempts.first?.reason == "provider refused (test)")
    }

    @Test("a message to a test destination is noted as sent, with no message id")
    func testDestination() async throws {
        let clock = ManualClock()
        let sender = ReceiptSender()
        let policy = relaxedPolicy { $0.testDestinations = ["+15555550123": "123456"] }
        let verifier = Self.verifier(sender: sender, clock: clock, policy: policy)
        let started = try await verifier.start(StartRequest(to: "+15555550123", clientAddress: "192.0.2.1"))
        let attempts = try await verifier.deliveries(id: started.verification.id)
        #expect(attempts.map(\.outcome) == [.sent])
        #expect(attempts.first?.messageID == nil)
        #expect(await sender.count == 0)
    }

    @Test(
        "a start answers before its attempt is written; reading the attempts, and noting the next, wait for it"
    )
    func notedBehind() async throws {
        let store = FaultyStore()
        store.holdsNotes.withLock { $0 = true }
        let sender = ReceiptSender()
        let policy = relaxedPolicy { $0.resendCooldowns = [.zero] }
        let verifier = Self.verifier(store: store, sender: sender, clock: ManualClock(), policy: policy)
        let id = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
            .verification.id
        // Answered, with the attempt still waiting to be written.
        #expect(store.waitingNotes == 1)
        #expect(try await store.deliveries(id: id).isEmpty)
        let read = Task { try await verifier.deliveries(id: id) }
        let resent = Task { try await verifier.resend(id: id, clientAddress: "192.0.2.1") }
        // The resend's code goes out, and its attempt waits behind the start's.
        var turns = 0
        while await sender.count < 2, turns < 100_000 {
            await Task.yield()
            turns += 1
        }
        #expect(await sender.count == 2)
        for _ in 0..<1_000 { await Task.yield() }
        #expect(store.waitingNotes == 1)
        store.holdsNotes.withLock { $0 = false }
        store.releaseNotes()
        _ = try await resent.value
        // The read waited for the start's attempt.
        #expect(try await read.value.first?.step == .start)
        #expect(try await verifier.deliveries(id: id).map(\.step) == [.start, .resend])
    }

    @Test("waiting for the attempts in flight returns at once without any, and once they are written")
    func settledAll() async throws {
        let store = FaultyStore()
        let verifier = Self.verifier(store: store, sender: ReceiptSender(), clock: ManualClock())
        await verifier.deliveryAttemptsSettled()
        store.holdsNotes.withLock { $0 = true }
        for number in ["+15555550100", "+15555550101"] {
            _ = try await verifier.start(StartRequest(to: number, clientAddress: "192.0.2.1"))
        }
        #expect(store.waitingNotes == 2)
        let settled = TestLocked(false)
        let waiting = Task {
            await verifier.deliveryAttemptsSettled()
            settled.withLock { $0 = true }
        }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(!settled.withLock { $0 })
        store.releaseNotes()
        await waiting.value
        #expect(settled.withLock { $0 })
        #expect(store.waitingNotes == 0)
    }

    @Test("a store that cannot note the attempt costs the attempt, not the start")
    func noteFails() async throws {
        let store = FaultyStore(failing: [.noteDelivery])
        let clock = ManualClock()
        let verifier = Self.verifier(store: store, sender: ReceiptSender(), clock: clock)
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect(started.created)
        #expect(try await verifier.deliveries(id: started.verification.id).isEmpty)
    }

    @Test("the search parses the destination as a start does, pages with a cursor, and answers it masked")
    func search() async throws {
        let clock = ManualClock()
        let verifier = Self.verifier(sender: ReceiptSender(), clock: clock)
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(
                try await verifier.start(StartRequest(to: "+12025550123", clientAddress: "192.0.2.1"))
                    .verification.id)
            clock.advance(by: .seconds(1))
        }
        _ = try await verifier.start(StartRequest(to: "+12025550124", clientAddress: "192.0.2.1"))
        let first = try await verifier.verifications(to: "+1 (202) 555-0123", limit: 2)
        #expect(first.items.map(\.verification.id) == [ids[2], ids[1]])
        #expect(first.items.allSatisfy { $0.verification.to == "+1 ••• ••• 0123" })
        #expect(first.items.allSatisfy { $0.deliveries.count == 1 })
        let next = try #require(first.next)
        let second = try await verifier.verifications(to: "+12025550123", after: next, limit: 2)
        #expect(second.items.map(\.verification.id) == [ids[0]])
        #expect(second.next == nil)
        #expect(try await verifier.verifications(to: "+12025550123", status: .approved).items.isEmpty)
        // A limit out of range is brought into 1…100.
        #expect(try await verifier.verifications(to: "+12025550123", limit: 0).items.count == 1)
        #expect(try await verifier.verifications(to: "+12025550123", limit: 500).items.count == 3)
    }

    @Test("the search refuses what is no destination; deliveries of an unknown verification are not found")
    func refusals() async {
        let verifier = Self.verifier(sender: ReceiptSender(), clock: ManualClock())
        let bad = await verifierError { () async throws(VerifierError) in
            _ = try await verifier.verifications(to: "not a destination")
        }
        #expect(bad?.kind == .invalidDestination)
        let missing = await verifierError { () async throws(VerifierError) in
            _ = try await verifier.deliveries(id: "vf_unknown")
        }
        #expect(missing == .notFound)
    }

    @Test(
        "a store failure in the search or the attempts is store_unavailable",
        arguments: [
            FaultyStore.Operation.search, .deliveries,
        ])
    func storeFailure(failing: FaultyStore.Operation) async throws {
        let store = FaultyStore()
        let verifier = Self.verifier(store: store, sender: ReceiptSender(), clock: ManualClock())
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        store.fail([failing])
        let search = await verifierError { () async throws(VerifierError) in
            _ = try await verifier.verifications(to: "+15555550100")
        }
        #expect(search?.kind == .storeUnavailable)
        if failing == .deliveries {
            let attempts = await verifierError { () async throws(VerifierError) in
                _ = try await verifier.deliveries(id: started.verification.id)
            }
            #expect(attempts?.kind == .storeUnavailable)
        }
    }
}

@Suite struct VerificationCursorTests {
    @Test("a cursor's token reads back as the same cursor")
    func roundTrip() throws {
        let cursor = VerificationCursor(createdAtMilliseconds: 1_795_000_000_123, id: "vf_AbC-_9")
        #expect(VerificationCursor(token: cursor.token) == cursor)
        #expect(!cursor.token.contains("="))
    }

    @Test(
        "text no cursor made is refused",
        arguments: [
            "", "!!!", "bm90IGEgY3Vyc29y", "LTEudmZfYQ", "MTIzLg", String(repeating: "A", count: 401),
        ])
    func refused(token: String) {
        #expect(VerificationCursor(token: token) == nil)
    }
}
