import Foundation
import OTPCore
import OTPEngine
import Testing

@Suite struct VerifierResendTests {
    @Test("a resend before the cooldown is resend_too_soon with the seconds left")
    func tooSoon() async throws {
        let h = Harness()
        let (v, _) = try await h.started()
        h.clock.advance(by: .milliseconds(5_500))
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(error == .resendTooSoon(retryAfter: .milliseconds(24_500)))
        #expect(error?.retrySeconds == 25)
        #expect(await h.sender.messages.count == 1)
    }

    @Test("a resend sends a new code, the old one stops working, attempts reset and the next cooldown starts")
    func resend() async throws {
        let h = Harness()
        let (v, oldCode) = try await h.started()
        _ = await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: v.id, code: Harness.wrong(oldCode), clientAddress: "192.0.2.1")
        }
        h.clock.advance(by: .seconds(30))
        let resent = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        #expect(resent.status == .pending)
        #expect(resent.attemptsLeft == 3)
        #expect(resent.sendsLeft == 3)
        #expect(resent.expiresAt == h.clock.date.addingTimeInterval(300))
        #expect(resent.resendAvailableAt == h.clock.date.addingTimeInterval(60))
        #expect(resent.createdAt == v.createdAt)
        let newCode = try #require(await h.sender.lastCode(for: v.id))
        #expect(await h.sender.messages.count == 2)
        if newCode != oldCode {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: v.id, code: oldCode, clientAddress: "192.0.2.1")
            }
            #expect(error?.kind == .incorrectCode)
        }
        #expect(
            try await h.verifier.check(id: v.id, code: newCode, clientAddress: "192.0.2.1").status
                == .approved)
    }

    @Test("cooldowns run 30, 60, 120, 300 s; after five sends max_sends_reached waits for the code's expiry")
    func cooldownsAndMaxSends() async throws {
        let h = Harness()
        let (v, _) = try await h.started()
        var expected = [30, 60, 120, 300]
        var current = v
        while let cooldown = expected.first {
            #expect(current.resendAvailableAt == h.clock.date.addingTimeInterval(TimeInterval(cooldown)))
            h.clock.advance(by: .seconds(cooldown - 1))
            let early = await verifierError { () async throws(VerifierError) in
                try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
            }
            #expect(early?.retrySeconds == 1)
            h.clock.advance(by: .seconds(1))
            current = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
            expected.removeFirst()
        }
        #expect(current.sendsLeft == 0)
        #expect(current.resendAvailableAt == nil)
        h.clock.advance(by: .seconds(100))
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(error == .maxSendsReached(retryAfter: .seconds(200)))
        #expect(await h.sender.messages.count == 5)
    }

    @Test("locked and expired verifications can get a new code")
    func fromLockedAndExpired() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        for _ in 0..<3 {
            _ = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: v.id, code: Harness.wrong(code), clientAddress: "192.0.2.1")
            }
        }
        h.clock.advance(by: .seconds(30))
        let unlocked = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        #expect(unlocked.status == .pending)
        #expect(unlocked.attemptsLeft == 3)
        h.clock.advance(by: .seconds(300))
        #expect(try await h.verifier.status(id: v.id).status == .expired)
        let renewed = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        #expect(renewed.status == .pending)
        let code3 = try #require(await h.sender.lastCode(for: v.id))
        #expect(
            try await h.verifier.check(id: v.id, code: code3, clientAddress: "192.0.2.1").status == .approved)
    }

    @Test("approved and canceled verifications cannot be resent")
    func notPending() async throws {
        let h = Harness()
        let (a, code) = try await h.started(to: "+15555550100")
        _ = try await h.verifier.check(id: a.id, code: code, clientAddress: "192.0.2.1")
        let (c, _) = try await h.started(to: "+15555550101")
        _ = try await h.verifier.cancel(id: c.id)
        h.clock.advance(by: .seconds(30))
        for id in [a.id, c.id] {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.resend(id: id, clientAddress: "192.0.2.1")
            }
            #expect(error == VerifierError.notPending)
        }
    }

    @Test("a resend whose delivery fails keeps the previous code valid and uses up no send")
    func deliveryFailure() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        h.clock.advance(by: .seconds(30))
        await h.sender.setFailing(true)
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(error == .deliveryFailed(.resend, DeliveryError("provider refused (test)")))
        let after = try await h.verifier.status(id: v.id)
        #expect(after.sendsLeft == 4)
        #expect(after.resendAvailableAt == v.resendAvailableAt)
        await h.sender.setFailing(false)
        // The lease was given back: a retry goes through at once.
        let retried = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        #expect(retried.sendsLeft == 3)
        let newCode = try #require(await h.sender.lastCode(for: v.id))
        #expect(
            try await h.verifier.check(id: v.id, code: newCode, clientAddress: "192.0.2.1").status
                == .approved)
        _ = code
    }

    @Test("the previous code still works after a failed resend")
    func previousCodeAfterFailedResend() async throws {
        let h = Harness()
        let (v, code) = try await h.started()
        h.clock.advance(by: .seconds(30))
        await h.sender.setFailing(true)
        _ = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(
            try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1").status == .approved)
    }

    @Test("parallel resends send one message; the others are resend_too_soon")
    func parallelResends() async throws {
        let h = Harness()
        let (v, _) = try await h.started()
        h.clock.advance(by: .seconds(30))
        let outcomes = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.filter { $0 == .resendTooSoon }.count == 19)
        #expect(await h.sender.messages.count == 2)
    }

    @Test("a resend never resets the total guess budget: maxSends × maxAttempts guesses in all")
    func guessBudget() async throws {
        let h = Harness()
        let judged = try await exhaustGuesses(h)
        #expect(judged == Policy.default.guessBudget)
        #expect(judged == 15)
    }
}

/// Guesses wrong codes until nothing can be judged any more, resending whenever allowed; returns the guesses judged.
func exhaustGuesses(_ h: Harness, to destination: String = "+15555550100") async throws -> Int {
    let (v, _) = try await h.started(to: destination)
    var judged = 0
    for _ in 0..<100 {
        let code = try #require(await h.sender.lastCode(for: v.id))
        // Bounded, so a store that never locks fails the test instead of hanging it.
        for _ in 0..<50 {
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: v.id, code: Harness.wrong(code), clientAddress: "192.0.2.1")
            }
            guard error?.kind == .incorrectCode else {
                #expect(error?.kind == .locked)
                break
            }
            judged += 1
        }
        h.clock.advance(by: .seconds(300))
        let resend = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        if resend?.kind == .maxSendsReached { break }
        #expect(resend == nil)
    }
    // Whatever happens next, nothing more is judged.
    h.clock.advance(by: .seconds(3600))
    let last = await verifierError { () async throws(VerifierError) in
        try await h.verifier.check(id: v.id, code: "000000", clientAddress: "192.0.2.1")
    }
    #expect(last?.kind == .expired || last?.kind == .locked)
    return judged
}
