import Foundation
import OTPCore
import Testing

@testable import OTPEngine

/// What a start binds to its codes: the transaction they approve and the caller's ref; and the
/// policy's test destinations, which the engine itself never sends to.
@Suite struct BindingTests {
    static let payment = TransactionDetails(amount: "12.50", currency: "EUR", payee: "ACME Ltd")

    @Test("a code's hash covers the transaction: id ‖ 0 ‖ code ‖ 0 ‖ txn ‖ 0 ‖ canonical JSON (known answer)")
    func hashVector() throws {
        let hasher = CodeHasher(secret: Array(repeating: 0x0b, count: 20))
        let binding = try #require(CodeHasher.binding(for: Self.payment))
        #expect(binding == "txn\u{0}" + #"{"amount":"12.50","currency":"EUR","payee":"ACME Ltd"}"#)
        let bound = try #require(hasher.hash(id: "vf_x", code: "482019", binding: binding))
        // HMAC-SHA256 under twenty 0x0b bytes (RFC 4231 case 1's key) of the message above, from
        // Python's hmac module.
        #expect(Hex.encode(bound) == "8c9ec7385ca7a5c29fd4583b1515ba76e9ebe721476dd259ebca822b48daa893")
        #expect(bound != hasher.hash(id: "vf_x", code: "482019"), "without the transaction, another hash")
        let digest = hasher.digest(id: "vf_x", code: "482019", binding: binding)
        #expect(digest == HMACDigest(bound), "the inline digest is the same hash")
    }

    @Test("a transaction changed in the store behind the server's back makes the right code wrong")
    func tamperedTransaction() async throws {
        let h = Harness()
        let started = try await h.verifier.start(
            StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", transaction: Self.payment))
        let id = started.verification.id
        let code = try #require(await h.sender.lastCode(for: id))
        #expect(await h.sender.messages.last?.text.contains("Approve 12.50 EUR to ACME Ltd.") == true)
        // Another verification's record, the same code hash, but another payee: as if a row were edited.
        let tamperedStore = MemoryStore()
        var record = try #require(try await h.store.record(id: id))
        record.transaction?.payee = "Mallory Ltd"
        _ = try await tamperedStore.insert(record, claim: nil, now: h.clock.date)
        let tampered = h.sibling(store: tamperedStore, policy: relaxedPolicy())
        await #expect(throws: VerifierError.incorrectCode(attemptsLeft: 2)) {
            _ = try await tampered.check(id: id, code: code, clientAddress: "192.0.2.1")
        }
        let approved = try await h.verifier.check(id: id, code: code, clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)
        #expect(approved.transaction == Self.payment)
        let subject = try #require(try await h.verifier.approvedSubject(id: id))
        #expect(subject.destination == "+15555550100")
        #expect(subject.transaction == Self.payment)
    }

    @Test("a resend keeps the transaction: the new code approves it and says it")
    func resendKeepsTransaction() async throws {
        let h = Harness()
        let started = try await h.verifier.start(
            StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", transaction: Self.payment))
        let id = started.verification.id
        h.clock.advance(by: .seconds(31))
        let resent = try await h.verifier.resend(id: id, clientAddress: "192.0.2.1")
        #expect(resent.transaction == Self.payment)
        #expect(await h.sender.messages.last?.text.contains("Approve 12.50 EUR to ACME Ltd.") == true)
        let code = try #require(await h.sender.lastCode(for: id))
        #expect(
            try await h.verifier.check(id: id, code: code, clientAddress: "192.0.2.1").status == .approved)
    }

    @Test("a malformed ref or transaction is refused before anything is stored or sent")
    func refusals() async throws {
        let h = Harness()
        for ref in ["", String(repeating: "r", count: 129), "a\u{7}b"] {
            await #expect(throws: VerifierError.invalidRef) {
                _ = try await h.verifier.start(
                    StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", ref: ref))
            }
        }
        var bad = Self.payment
        bad.currency = "euro"
        await #expect(throws: VerifierError.invalidTransaction) {
            _ = try await h.verifier.start(
                StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", transaction: bad))
        }
        #expect(await h.sender.messages.isEmpty)
    }

    @Test("the ref is echoed in the verification and its events")
    func refInEvents() async throws {
        let store = MemoryStore(recordsEvents: true)
        let h = Harness(store: store)
        let started = try await h.verifier.start(
            StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", ref: "attempt-9"))
        #expect(started.verification.ref == "attempt-9")
        let events = try store.claimEvents(
            now: h.clock.date.addingTimeInterval(1), leaseUntil: h.clock.date.addingTimeInterval(60),
            limit: 10)
        #expect(events.map(\.event.ref) == ["attempt-9"])
    }

    @Test("an embedding program's verifier never hands a test destination's message to its sender")
    func testDestinationsInTheEngine() async throws {
        var policy = relaxedPolicy()
        policy.testDestinations = ["+15555550155": "123456"]
        let seen = Seen()
        let sender = RecordingSender()
        let verifier = Verifier(
            store: MemoryStore(), sender: sender, policy: policy, secret: testSecret,
            testMessages: { seen.add($0) })
        let started = try await verifier.start(StartRequest(to: "+15555550155", clientAddress: "192.0.2.1"))
        #expect(await sender.messages.isEmpty, "the provider never saw the test destination")
        #expect(seen.messages.count == 1)
        #expect(seen.messages.first?.text.contains("123456") == true)
        let approved = try await verifier.check(
            id: started.verification.id, code: "123456", clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)
        // A real destination still goes to the sender.
        _ = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        #expect(await sender.messages.count == 1)
    }

    @Test(
        "a test destination taken off the list ends its pending verifications; its fixed code approves nothing"
    )
    func removedTestDestination() async throws {
        var policy = relaxedPolicy()
        policy.testDestinations = ["+15555550156": "123456", "+15555550157": "654321"]
        let verifier = Verifier(
            store: MemoryStore(), sender: RecordingSender(), policy: policy, secret: testSecret,
            testMessages: { _ in })
        let removed = try await verifier.start(StartRequest(to: "+15555550156", clientAddress: "192.0.2.1"))
        let kept = try await verifier.start(StartRequest(to: "+15555550157", clientAddress: "192.0.2.1"))
        let canceled = await verifier.replaceTestDestinations(["+15555550157": "654321"]).value
        #expect(canceled == 1)
        #expect(try await verifier.status(id: removed.verification.id).status == .canceled)
        let refused = await verifierError { () async throws(VerifierError) in
            try await verifier.check(id: removed.verification.id, code: "123456", clientAddress: "192.0.2.1")
        }
        #expect(refused?.kind == .notPending)
        // One still on the list is untouched, and approves as a test.
        let approved = try await verifier.check(
            id: kept.verification.id, code: "654321", clientAddress: "192.0.2.1")
        #expect(approved.status == .approved)
        #expect(try await verifier.approvedSubject(id: kept.verification.id)?.isTest == true)
    }
}

/// Messages the test sink saw.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [OutgoingMessage] = []
    var messages: [OutgoingMessage] { lock.withLock { stored } }
    func add(_ message: OutgoingMessage) { lock.withLock { stored.append(message) } }
}
