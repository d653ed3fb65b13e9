import Foundation
import OTPCore
import OTPEngine
import Testing

@Suite struct RateLimitTests {
    func start(
        _ h: Harness, to: String = "+15555550100", address: String = "192.0.2.1"
    ) async -> VerifierError? {
        await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: to, clientAddress: address))
        }
    }

    func check(
        _ h: Harness, _ id: String, _ code: String, address: String = "192.0.2.1"
    ) async -> VerifierError? {
        await verifierError { () async throws(VerifierError) in
            try await h.verifier.check(id: id, code: code, clientAddress: address)
        }
    }

    @Test("starts per destination: a burst of the limit, then one per window ÷ limit, with retryAfter")
    func startsPerDestination() async {
        let h = Harness(
            policy: relaxedPolicy { $0.startsPerDestination = RateLimit(limit: 5, window: .seconds(3600)) })
        for index in 0..<5 {
            #expect(await start(h, address: "192.0.2.\(index)") == nil)
        }
        let refused = await start(h, address: "192.0.2.99")
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.retryAfter == .seconds(720))
        // Another way of writing the same number counts as the same destination.
        #expect(await start(h, to: "+1 (555) 555-0100")?.retrySeconds == 720)
        #expect(await start(h, to: "+15555550101") == nil)
        h.clock.advance(by: .seconds(719))
        #expect(await start(h)?.retrySeconds == 1)
        h.clock.advance(by: .seconds(1))
        #expect(await start(h) == nil)
        #expect(await start(h)?.kind == .rateLimited)
        #expect(await h.sender.messages.count == 7)
    }

    @Test("email destinations count case-insensitively")
    func emailDestinations() async {
        let h = Harness(
            policy: relaxedPolicy { $0.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600)) })
        #expect(await start(h, to: "ana@example.org") == nil)
        #expect(await start(h, to: "ANA@Example.org")?.kind == .rateLimited)
    }

    @Test(
        "a +tag in an email's local part shares the address's limits; the code still goes to the address as given"
    )
    func plusAddressing() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.startsPerDestination = RateLimit(limit: 2, window: .seconds(3600))
                $0.failedChecksPerDestination = RateLimit(limit: 1, window: .seconds(3600))
            })
        #expect(await start(h, to: "victim+1@example.org") == nil)
        #expect(await start(h, to: "Victim+2@Example.org") == nil)
        #expect(await start(h, to: "victim+3@example.org")?.kind == .rateLimited)
        #expect(await start(h, to: "victim@example.org")?.kind == .rateLimited)
        #expect(await start(h, to: "other+1@example.org") == nil)
        #expect(
            await h.sender.messages.map(\.to).prefix(2) == ["victim+1@example.org", "Victim+2@example.org"])
        let ids = await h.sender.messages.prefix(2).map(\.verificationID)
        let codes = [await h.sender.lastCode(for: ids[0]) ?? "", await h.sender.lastCode(for: ids[1]) ?? ""]
        #expect(await check(h, ids[0], Harness.wrong(codes[0]))?.kind == .incorrectCode)
        #expect(await check(h, ids[1], Harness.wrong(codes[1]))?.kind == .rateLimited)
    }

    @Test(
        "one country calling code takes at most its cap of sends, starts and resends alike; the refusal names the cap"
    )
    func callingCodeCap() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.globalSendsPerHour = 100
                $0.sendsPerCallingCodePerHour = 2
                $0.resendCooldowns = [.zero]
            })
        #expect(await start(h, to: "+15555550100") == nil)
        let first = try #require(await h.sender.messages.first)
        _ = try await h.verifier.resend(id: first.verificationID, clientAddress: "192.0.2.1")
        let refused = await start(h, to: "+15555550101")
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.limit == .sendsPerCallingCode)
        let resend = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: first.verificationID, clientAddress: "192.0.2.1")
        }
        #expect(resend?.limit == .sendsPerCallingCode)
        #expect(await start(h, to: "+447700900123") == nil)
        #expect(await start(h, to: "ana@example.org") == nil)
        #expect(await h.sender.messages.count == 4)
        #expect(await start(h, to: "+15555550100", address: "192.0.2.9")?.limit == .sendsPerCallingCode)
    }

    @Test("each refusal names the limit that made it")
    func refusalNamesItsLimit() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600))
                $0.globalSendsPerHour = 2
            })
        #expect(await start(h, to: "+15555550100") == nil)
        #expect(await start(h, to: "+15555550100")?.limit == .startsPerDestination)
        #expect(await start(h, to: "+15555550101") == nil)
        #expect(await start(h, to: "+15555550102")?.limit == .globalSends)
        #expect(VerifierError.Limit.globalSends.isSendCap && !VerifierError.Limit.startsPerAddress.isSendCap)
    }

    @Test(
        "failed checks counted per destination and address let the owner in while a stranger spends their share"
    )
    func failedChecksPerPair() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.maxAttempts = 10
                $0.failedChecksPerDestination = RateLimit(limit: 100, window: .seconds(86_400))
                $0.failedChecksPerDestinationAndAddress = RateLimit(limit: 3, window: .seconds(86_400))
            })
        let (v, code) = try await h.started()
        let wrong = Harness.wrong(code)
        for _ in 0..<3 {
            #expect(await check(h, v.id, wrong, address: "198.51.100.7")?.kind == .incorrectCode)
        }
        let blocked = await check(h, v.id, wrong, address: "198.51.100.7")
        #expect(blocked?.kind == .rateLimited)
        #expect(blocked?.limit == .failedChecksPerDestinationAndAddress)
        #expect(await check(h, v.id, code, address: "203.0.113.20") == nil)
    }

    @Test(
        "the email limit key drops a +tag and case, and nothing else",
        arguments: [
            ("Victim+1@Example.org", "victim@example.org"), ("victim@example.org", "victim@example.org"),
            ("+tag@example.org", "+tag@example.org"), ("a+b+c@x.org", "a@x.org"), ("a.b@x.org", "a.b@x.org"),
        ])
    func emailLimitKey(address: String, key: String) {
        #expect(Destination.limitKey(channel: .email, address: address) == key)
        #expect(Destination.limitKey(channel: .sms, address: "+15555550100") == "+15555550100")
    }

    @Test("starts per client address count IPv6 by /64")
    func startsPerAddress() async {
        let h = Harness(
            policy: relaxedPolicy { $0.startsPerAddress = RateLimit(limit: 2, window: .seconds(300)) })
        #expect(await start(h, to: "+15555550100", address: "2001:db8:0:1::1") == nil)
        #expect(await start(h, to: "+15555550101", address: "2001:db8:0:1:ffff::2") == nil)
        let refused = await start(h, to: "+15555550102", address: "2001:db8:0:1::3")
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.retrySeconds == 150)
        #expect(await start(h, to: "+15555550103", address: "2001:db8:0:2::1") == nil)
        #expect(await start(h, to: "+15555550104", address: "192.0.2.1") == nil)
    }

    @Test("a refused start takes no permit: the other limits are not used up")
    func allOrNone() async {
        let h = Harness(
            policy: relaxedPolicy {
                $0.startsPerAddress = RateLimit(limit: 1, window: .seconds(300))
                $0.startsPerDestination = RateLimit(limit: 2, window: .seconds(3600))
            })
        #expect(await start(h, address: "192.0.2.1") == nil)
        for _ in 0..<5 {
            #expect(await start(h, address: "192.0.2.1")?.kind == .rateLimited)
        }
        #expect(await start(h, address: "192.0.2.2") == nil)
    }

    @Test("the global send cap counts starts and resends, and a failed send gives its permit back")
    func globalSends() async throws {
        let h = Harness(policy: relaxedPolicy { $0.globalSendsPerHour = 3 })
        let (v, _) = try await h.started(to: "+15555550100")
        #expect(await start(h, to: "+15555550101") == nil)
        h.clock.advance(by: .seconds(30))
        await h.sender.setFailing(true)
        #expect(
            await verifierError { () async throws(VerifierError) in
                try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
            }?.kind == .deliveryFailed)
        await h.sender.setFailing(false)
        _ = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        let refused = await start(h, to: "+15555550102")
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.retrySeconds == 1200 - 30)
        h.clock.advance(by: .seconds(60))
        let resend = await verifierError { () async throws(VerifierError) in
            try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        }
        #expect(resend?.kind == .rateLimited)
    }

    @Test("checks per client address count every check, malformed codes included")
    func checksPerAddress() async throws {
        let h = Harness(
            policy: relaxedPolicy { $0.checksPerAddress = RateLimit(limit: 3, window: .seconds(300)) })
        let (v, code) = try await h.started()
        #expect(await check(h, v.id, "1")?.kind == .invalidCodeFormat)
        #expect(await check(h, v.id, "12")?.kind == .invalidCodeFormat)
        #expect(await check(h, v.id, Harness.wrong(code))?.kind == .incorrectCode)
        let refused = await check(h, v.id, code)
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.retrySeconds == 100)
        #expect(refused?.attemptsLeft == 2)
        #expect(await check(h, v.id, code, address: "192.0.2.2")?.kind == nil)
    }

    @Test("failed checks per destination count incorrect codes only, across verifications")
    func failedChecksPerDestination() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.failedChecksPerDestination = RateLimit(limit: 2, window: .seconds(86_400))
            })
        let (first, firstCode) = try await h.started()
        for text in ["1", "12", "123", "1234567"] {
            #expect(await check(h, first.id, text)?.kind == .invalidCodeFormat)
        }
        #expect(await check(h, first.id, Harness.wrong(firstCode))?.kind == .incorrectCode)
        #expect(await check(h, first.id, firstCode) == nil)
        let (second, secondCode) = try await h.started()
        #expect(await check(h, second.id, Harness.wrong(secondCode))?.kind == .incorrectCode)
        let refused = await check(h, second.id, secondCode, address: "198.51.100.1")
        #expect(refused?.kind == .rateLimited)
        #expect(refused?.retrySeconds == 43_200)
        // Another destination is not affected.
        let (third, thirdCode) = try await h.started(to: "+15555550199")
        #expect(await check(h, third.id, thirdCode) == nil)
    }

    @Test("failed checks count an email destination case-insensitively")
    func failedChecksByEmail() async throws {
        let h = Harness(
            policy: relaxedPolicy {
                $0.failedChecksPerDestination = RateLimit(limit: 1, window: .seconds(86_400))
            })
        let (first, firstCode) = try await h.started(to: "Ana@example.org")
        #expect(await check(h, first.id, Harness.wrong(firstCode))?.kind == .incorrectCode)
        let (second, secondCode) = try await h.started(to: "ana@EXAMPLE.org")
        #expect(await check(h, second.id, secondCode)?.kind == .rateLimited)
    }

    @Test("order of judgement: 409, 410 and 423 come before 429, and 429 before 400")
    func orderOfJudgement() async throws {
        let h = Harness(
            policy: relaxedPolicy { $0.checksPerAddress = RateLimit(limit: 3, window: .seconds(300)) })
        let (locked, lockedCode) = try await h.started(to: "+15555550100")
        for _ in 0..<3 {
            _ = await check(h, locked.id, Harness.wrong(lockedCode))
        }
        // The address has used its three checks.
        let (fresh, _) = try await h.started(to: "+15555550101")
        #expect(await check(h, fresh.id, "1")?.kind == .rateLimited)
        #expect(await check(h, locked.id, lockedCode)?.kind == .locked)
        let (canceled, _) = try await h.started(to: "+15555550102")
        _ = try await h.verifier.cancel(id: canceled.id)
        #expect(await check(h, canceled.id, "1")?.kind == .notPending)
        h.clock.advance(by: .seconds(300))
        let (late, _) = try await h.started(to: "+15555550103")
        for _ in 0..<3 {
            _ = await check(h, late.id, "1")
        }
        #expect(await check(h, fresh.id, "1")?.kind == .expired)
        #expect(await check(h, late.id, "1")?.kind == .rateLimited)
    }

    @Test("a burst of checks from one address is held to the limit even in parallel")
    func parallelChecksPerAddress() async throws {
        let h = Harness(
            policy: relaxedPolicy { $0.checksPerAddress = RateLimit(limit: 10, window: .seconds(300)) })
        let (v, _) = try await h.started()
        let outcomes = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for _ in 0..<50 {
                group.addTask { await check(h, v.id, "1")?.kind }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .invalidCodeFormat }.count == 10)
        #expect(outcomes.filter { $0 == .rateLimited }.count == 40)
    }
}
