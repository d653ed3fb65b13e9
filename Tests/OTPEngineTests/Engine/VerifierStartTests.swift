import Foundation
import OTPCore
import OTPEngine
import Testing

@Suite struct VerifierStartTests {
    @Test("a start stores a pending verification, sends one code and answers the masked destination")
    func start() async throws {
        let h = Harness()
        let result = try await h.verifier.start(
            StartRequest(to: "+1 (555) 555-0100", clientAddress: "192.0.2.1"))
        let v = result.verification
        #expect(result.created)
        #expect(v.status == .pending)
        #expect(v.channel == .sms)
        #expect(v.to == "+1 ••• ••• 0100")
        #expect(v.codeLength == 6)
        #expect(v.attemptsLeft == 3)
        #expect(v.sendsLeft == 4)
        #expect(v.createdAt == h.clock.date)
        #expect(v.expiresAt == h.clock.date.addingTimeInterval(300))
        #expect(v.resendAvailableAt == h.clock.date.addingTimeInterval(30))
        #expect(v.id.hasPrefix("vf_") && v.id.count == 33)

        let messages = await h.sender.messages
        #expect(messages.count == 1)
        #expect(messages[0].to == "+15555550100")
        #expect(messages[0].verificationID == v.id)
        let code = try #require(RecordingSender.code(in: messages[0].text))
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(messages[0].text == "Your OTPKit code is \(code). It expires in 5 minutes.")
        #expect(try await h.verifier.status(id: v.id) == v)
    }

    @Test("a later start's identifier sorts after an earlier one's: its time part is the clock's")
    func identifiersFollowTheClock() async throws {
        let h = Harness()
        var ids: [String] = []
        for index in 0..<20 {
            h.clock.advance(by: .milliseconds(1))
            let started = try await h.verifier.start(
                StartRequest(to: "+1555555\(String(index + 1000))", clientAddress: "192.0.2.\(index)"))
            ids.append(started.verification.id)
        }
        #expect(ids == ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Set(ids.map { $0.prefix(11) }).count == 20, "each millisecond its own time part")
        #expect(Set(ids.map { $0.dropFirst(11) }).count == 20)
    }

    @Test("neither the code nor the full destination appears in the answer, and the store keeps only a hash")
    func nothingLeaks() async throws {
        let store = MemoryStore()
        let h = Harness(store: store)
        let (v, code) = try await h.started()
        let json = String(decoding: try WireCoding.encoder().encode(v), as: UTF8.self)
        #expect(!json.contains(code))
        #expect(!json.contains("5555550100"))
        let record = try #require(await store.record(id: v.id))
        #expect(
            record.codeHash
                == HMACSHA256.authenticationCode(key: testSecret, message: Array("\(v.id)\u{0}\(code)".utf8)))
        #expect(!String(decoding: record.codeHash, as: UTF8.self).contains(code))
    }

    @Test("an @ means email, and the email goes to the full address")
    func email() async throws {
        let h = Harness()
        let v = try await h.verifier.start(StartRequest(to: "Ana@Example.org", clientAddress: "192.0.2.1"))
            .verification
        #expect(v.channel == .email)
        #expect(v.to == "A•••@example.org")
        let message = try #require(await h.sender.messages.first)
        #expect(message.to == "Ana@example.org")
        #expect(message.html != nil)
    }

    @Test("a malformed destination is invalid_destination and sends nothing")
    func invalidDestination() async {
        let h = Harness()
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "5555550100", clientAddress: "192.0.2.1"))
        }
        #expect(error == VerifierError.invalidDestination)
        #expect(await h.sender.messages.isEmpty)
    }

    @Test("a channel that is off, mismatched or to a country not allowed is refused, each with its own kind")
    func channelNotSupported() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.channels = [.sms]
                $0.allowedCallingCodes = ["1", "44"]
            })
        for (request, kind) in [
            (
                StartRequest(to: "ana@example.org", clientAddress: "192.0.2.1"),
                VerifierError.Kind.channelNotSupported
            ),
            (
                StartRequest(to: "+15555550100", channel: .email, clientAddress: "192.0.2.1"),
                .destinationChannelMismatch
            ),
            (StartRequest(to: "+4930123456", clientAddress: "192.0.2.1"), .callingCodeNotAllowed),
            (StartRequest(to: "+3531234567", clientAddress: "192.0.2.1"), .callingCodeNotAllowed),
        ] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.start(request)
            }
            #expect(error?.kind == kind, "\(request.to)")
        }
        #expect(
            try await h.verifier.start(StartRequest(to: "+447700900123", clientAddress: "192.0.2.1")).created)
        #expect(await h.sender.messages.count == 1)
    }

    @Test(
        "the same idempotency key and body within the code lifetime replays the verification and sends nothing"
    )
    func idempotentReplay() async throws {
        let h = Harness()
        let request = StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "key-1")
        let first = try await h.verifier.start(request)
        h.clock.advance(by: .seconds(10))
        let again = try await h.verifier.start(request)
        #expect(first.created)
        #expect(!again.created)
        #expect(again.verification.id == first.verification.id)
        #expect(await h.sender.messages.count == 1)

        // Another key is another verification.
        var other = request
        other.idempotencyKey = "key-2"
        #expect(try await h.verifier.start(other).verification.id != first.verification.id)

        // After the code lifetime the key is free again.
        h.clock.advance(by: .seconds(290))
        let later = try await h.verifier.start(request)
        #expect(later.created)
        #expect(later.verification.id != first.verification.id)
    }

    @Test("the same idempotency key with another body is idempotency_key_reused")
    func idempotencyKeyReused() async throws {
        let h = Harness()
        _ = try await h.verifier.start(
            StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "k"))
        for body in [
            StartRequest(to: "+15555550101", clientAddress: "192.0.2.1", idempotencyKey: "k"),
            StartRequest(to: "+15555550100", channel: .sms, clientAddress: "192.0.2.1", idempotencyKey: "k"),
            StartRequest(to: "+1 555 555 0100", clientAddress: "192.0.2.1", idempotencyKey: "k"),
        ] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.start(body)
            }
            #expect(error?.kind == .idempotencyKeyReused)
        }
        // The client's address is not part of the body.
        let replay = try await h.verifier.start(
            StartRequest(to: "+15555550100", clientAddress: "198.51.100.9", idempotencyKey: "k"))
        #expect(!replay.created)
    }

    @Test("an idempotency key that is empty, too long or not printable ASCII is invalid_request")
    func invalidIdempotencyKey() async {
        let h = Harness()
        for key in ["", String(repeating: "k", count: 256), "tab\there", "naïve"] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.start(
                    StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: key))
            }
            #expect(error?.kind == .invalidIdempotencyKey)
        }
        #expect(await h.sender.messages.isEmpty)
        let longest = String(repeating: "k", count: 255)
        #expect(
            await verifierError { () async throws(VerifierError) in
                try await h.verifier.start(
                    StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: longest))
            } == nil)
    }

    @Test("parallel starts with one idempotency key create one verification and send one code")
    func idempotentParallel() async throws {
        let h = Harness()
        let request = StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "same")
        let results = try await withThrowingTaskGroup(of: StartResult.self) { group in
            for _ in 0..<20 {
                group.addTask { try await h.verifier.start(request) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter(\.created).count == 1)
        #expect(Set(results.map(\.verification.id)).count == 1)
        #expect(await h.sender.messages.count == 1)
    }

    @Test("a start whose store step failed answers without waiting for an undoing the store blocks")
    func oneDeadline() async throws {
        let store = FaultyStore()
        let h = Harness(store: store)
        store.losesInsertReplies.withLock { $0 = true }
        store.blocksCancels.withLock { $0 = true }
        let answered = TestLocked(false)
        let started = Task {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
            }
            answered.withLock { $0 = true }
            return error
        }
        // The answer comes while the undoing still waits; with one deadline per store call it never would.
        for _ in 0..<400 where !answered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        let answeredFirst = answered.withLock { $0 }
        #expect(store.waitingCancels == 1, "the undoing is still waiting for the store")
        store.releaseCancels()
        let error = await started.value
        #expect(answeredFirst, "the start waited for the blocked undoing")
        #expect(error?.kind == .storeUnavailable)
        #expect(await h.sender.messages.isEmpty)
    }

    @Test("a start whose store reply is lost frees its idempotency key and cancels what was written")
    func lostInsertReply() async throws {
        let store = FaultyStore()
        let h = Harness(store: store)
        store.losesInsertReplies.withLock { $0 = true }
        let request = StartRequest(
            to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "lost-reply")
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(request)
        }
        #expect(error?.kind == .storeUnavailable)
        #expect(error?.storeError?.reason == "start reply lost (test)")
        #expect(await h.sender.messages.isEmpty)
        store.losesInsertReplies.withLock { $0 = false }
        let retry = try await h.verifier.start(request)
        #expect(retry.created)
        #expect(await h.sender.messages.count == 1)
    }

    @Test("the same idempotency key in two scopes is two keys: neither caller replays the other's start")
    func scopedIdempotencyKeys() async throws {
        let h = Harness()
        func start(_ scope: String) async throws -> StartResult {
            try await h.verifier.start(
                StartRequest(
                    to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "shared",
                    idempotencyScope: scope))
        }
        let first = try await start("kA")
        let other = try await start("kB")
        let again = try await start("kA")
        #expect(first.created && other.created)
        #expect(first.verification.id != other.verification.id)
        #expect(!again.created)
        #expect(again.verification.id == first.verification.id)
    }

    @Test("a failed delivery cancels the verification, answers delivery_failed and frees the idempotency key")
    func deliveryFailure() async throws {
        let h = Harness()
        await h.sender.setFailing(true)
        let request = StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "retry-me")
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(request)
        }
        #expect(error == .deliveryFailed(.start, DeliveryError("provider refused (test)")))
        let refused = try #require(await h.sender.refused.first)
        #expect(try await h.verifier.status(id: refused.verificationID).status == .canceled)

        await h.sender.setFailing(false)
        let retry = try await h.verifier.start(request)
        #expect(retry.created)
        #expect(retry.verification.id != refused.verificationID)
    }
}
