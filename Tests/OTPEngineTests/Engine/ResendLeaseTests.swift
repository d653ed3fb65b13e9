import Foundation
import OTPCore
import OTPEngine
import Testing

/// A sender that, once armed, holds the next message it is given until told to let it go.
actor GateSender: CodeSender {
    private var held: CheckedContinuation<Void, Never>?
    private var armed = false
    private var arrived: [CheckedContinuation<Void, Never>] = []
    private(set) var delivered: [OutgoingMessage] = []

    func send(_ message: OutgoingMessage) async throws(DeliveryError) {
        if armed {
            armed = false
            await withCheckedContinuation { continuation in
                held = continuation
                arrived.forEach { $0.resume() }
                arrived = []
            }
        }
        delivered.append(message)
    }

    /// Waits until the first message is being held.
    func waitUntilHolding() async {
        if held != nil { return }
        await withCheckedContinuation { arrived.append($0) }
    }

    /// Lets the held message through.
    func release() {
        held?.resume()
        held = nil
    }

    /// Arms the gate for the next message.
    func arm() {
        armed = true
    }
}

@Suite struct ResendLeaseTests {
    @Test("a resend whose delivery outlives its lease loses to the one that took over")
    func lapsedLease() async throws {
        let clock = ManualClock()
        let sender = GateSender()
        let verifier = Verifier(
            store: MemoryStore(), sender: sender, policy: relaxedPolicy(), secret: testSecret,
            now: { clock.date })
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        let id = started.verification.id
        await sender.arm()
        clock.advance(by: .seconds(30))

        let slow = Task { () async -> VerifierError? in
            await verifierError { () async throws(VerifierError) in
                try await verifier.resend(id: id, clientAddress: "192.0.2.1")
            }
        }
        await sender.waitUntilHolding()
        // While the slow delivery runs, a second resend is too soon...
        let early = await verifierError { () async throws(VerifierError) in
            try await verifier.resend(id: id, clientAddress: "192.0.2.1")
        }
        #expect(early?.kind == .resendTooSoon)
        #expect(early?.retrySeconds == 60)
        // ...until the lease lapses; then it takes over and sends its own code.
        clock.advance(by: .seconds(60))
        let takeover = try await verifier.resend(id: id, clientAddress: "192.0.2.1")
        #expect(takeover.sendsLeft == 3)
        await sender.release()
        let lost = await slow.value
        #expect(lost?.kind == .resendTooSoon)
        #expect(try await verifier.status(id: id).sendsLeft == 3)
        // The code that counts is the one of the resend that took over.
        let messages = await sender.delivered
        let winning = try #require(RecordingSender.code(in: messages[1].text))
        #expect(
            try await verifier.check(id: id, code: winning, clientAddress: "192.0.2.1").status == .approved)
    }
}

@Suite struct StoreOpeningTests {
    @Test("a SQLite store that cannot open its file throws")
    func sqliteOpenFailure() throws {
        #expect(throws: (any Error).self) {
            try SQLiteStoreFactory.open("/nonexistent-dir-for-otp-tests/otp.sqlite3")
        }
        let path = temporaryDirectory() + "/not-a-database.sqlite3"
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try SQLiteStoreFactory.open(path) }
    }

    @Test("a Redis store with nobody listening throws")
    func redisOpenFailure() throws {
        #expect(throws: (any Error).self) { try RedisStoreFactory.open(port: 1) }
    }

    @Test("reopening a SQLite file finds what was stored")
    func sqliteReopen() async throws {
        let path = temporaryDirectory() + "/otp.sqlite3"
        let clock = ManualClock()
        let sender = RecordingSender()
        let first = Verifier(
            store: try SQLiteStoreFactory.open(path), sender: sender, policy: relaxedPolicy(),
            secret: testSecret,
            now: { clock.date })
        let started = try await first.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        let code = try #require(await sender.lastCode(for: started.verification.id))
        let second = Verifier(
            store: try SQLiteStoreFactory.open(path), sender: sender, policy: relaxedPolicy(),
            secret: testSecret,
            now: { clock.date })
        #expect(
            try await second.check(id: started.verification.id, code: code, clientAddress: "192.0.2.1").status
                == .approved)
    }
}
