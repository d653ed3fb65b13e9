import Foundation
import OTPCore
import OTPEngine
import Testing

/// The engine's promises, held through every store.
@Suite struct VerifierOnStoreTests {
    /// Runs `count` wrong checks at once, spread over the verifiers, and returns the error codes.
    func concurrentWrongChecks(
        _ verifiers: [Verifier], id: String, code: String, count: Int
    ) async -> [VerifierError.Kind?] {
        let wrong = Harness.wrong(code)
        return await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for index in 0..<count {
                let verifier = verifiers[index % verifiers.count]
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await verifier.check(id: id, code: wrong, clientAddress: "192.0.2.\(index % 250)")
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(
        "200 concurrent wrong checks judge exactly attemptsLeft codes; the rest are locked",
        arguments: StoreKind.allCases)
    func race(kind: StoreKind) async throws {
        let h = Harness(store: try await kind.makeStore())
        let (v, code) = try await h.started()
        let outcomes = await concurrentWrongChecks([h.verifier], id: v.id, code: code, count: 200)
        #expect(
            outcomes.filter { $0 == .incorrectCode }.count == v.attemptsLeft,
            "\(outcomes.map { String(describing: $0) }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 })"
        )
        #expect(
            outcomes.filter { $0 == .locked }.count == 200 - v.attemptsLeft,
            "\(outcomes.map { String(describing: $0) }.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 })"
        )
        let after = try await h.verifier.status(id: v.id)
        #expect(after.status == .locked)
        #expect(after.attemptsLeft == 0)
        #expect(try await h.store.record(id: v.id)?.attemptsLeft == 0)
    }

    @Test(
        "three verifiers on separate connections share the attempt count exactly",
        arguments: StoreKind.allCases)
    func raceAcrossInstances(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 3)
        let policy = relaxedPolicy { $0.maxAttempts = 5 }
        let h = Harness(store: stores[0], policy: policy)
        let verifiers = [h.verifier] + stores.dropFirst().map { h.sibling(store: $0, policy: policy) }
        let (v, code) = try await h.started()
        #expect(v.attemptsLeft == 5)
        let outcomes = await concurrentWrongChecks(verifiers, id: v.id, code: code, count: 200)
        #expect(outcomes.filter { $0 == .incorrectCode }.count == 5)
        #expect(outcomes.filter { $0 == .locked }.count == 195)
        for verifier in verifiers {
            #expect(try await verifier.status(id: v.id).status == .locked)
        }
    }

    @Test("parallel right codes on three instances approve exactly once", arguments: StoreKind.allCases)
    func goodOnceAcrossInstances(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 3)
        let h = Harness(store: stores[0])
        let verifiers =
            [h.verifier] + stores.dropFirst().map { h.sibling(store: $0, policy: relaxedPolicy()) }
        let (v, code) = try await h.started()
        let outcomes = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for index in 0..<60 {
                let verifier = verifiers[index % 3]
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1)
        #expect(outcomes.allSatisfy { $0 == nil || $0 == .notPending || $0 == .locked })
    }

    @Test("a resend never resets the total guess budget", arguments: StoreKind.allCases)
    func guessBudget(kind: StoreKind) async throws {
        let h = Harness(store: try await kind.makeStore())
        #expect(try await exhaustGuesses(h) == Policy.default.guessBudget)
    }

    @Test("expiry, cooldowns and lock follow the manual clock", arguments: StoreKind.allCases)
    func clockDriven(kind: StoreKind) async throws {
        let h = Harness(store: try await kind.makeStore())
        let (v, code) = try await h.started()
        h.clock.advance(by: .seconds(29))
        #expect(
            await verifierError { () async throws(VerifierError) in
                try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
            }?.retrySeconds == 1)
        h.clock.advance(by: .seconds(271))
        #expect(try await h.verifier.status(id: v.id).status == .expired)
        #expect(
            await verifierError { () async throws(VerifierError) in
                try await h.verifier.check(id: v.id, code: code, clientAddress: "192.0.2.1")
            }?.kind == .expired)
        let resent = try await h.verifier.resend(id: v.id, clientAddress: "192.0.2.1")
        #expect(resent.status == .pending)
        #expect(resent.resendAvailableAt == h.clock.date.addingTimeInterval(60))
        let newCode = try #require(await h.sender.lastCode(for: v.id))
        #expect(
            try await h.verifier.check(id: v.id, code: newCode, clientAddress: "192.0.2.1").status
                == .approved)
    }

    @Test("idempotent starts and parallel resends hold across instances", arguments: StoreKind.allCases)
    func startsAndResendsAcrossInstances(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 3)
        let h = Harness(store: stores[0])
        let verifiers =
            [h.verifier] + stores.dropFirst().map { h.sibling(store: $0, policy: relaxedPolicy()) }
        let request = StartRequest(to: "+15555550100", clientAddress: "192.0.2.1", idempotencyKey: "once")
        let starts = try await withThrowingTaskGroup(of: StartResult.self) { group in
            for index in 0..<30 {
                group.addTask { try await verifiers[index % 3].start(request) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(starts.filter(\.created).count == 1)
        let ids = Set(starts.map(\.verification.id))
        #expect(ids.count == 1)
        let id = try #require(ids.first)

        h.clock.advance(by: .seconds(30))
        let resends = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for index in 0..<30 {
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await verifiers[index % 3].resend(id: id, clientAddress: "192.0.2.1")
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(resends.filter { $0 == nil }.count == 1)
        #expect(resends.filter { $0 == .resendTooSoon }.count == 29)
        #expect(await h.sender.messages.count == 2)
    }

    @Test("rate limits hold across instances", arguments: StoreKind.allCases)
    func rateLimitsAcrossInstances(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 3)
        let policy = relaxedPolicy { $0.startsPerDestination = RateLimit(limit: 4, window: .seconds(3600)) }
        let h = Harness(store: stores[0], policy: policy)
        let verifiers = [h.verifier] + stores.dropFirst().map { h.sibling(store: $0, policy: policy) }
        let outcomes = await withTaskGroup(of: VerifierError.Kind?.self) { group in
            for index in 0..<12 {
                group.addTask {
                    await verifierError { () async throws(VerifierError) in
                        try await verifiers[index % 3].start(
                            StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
                    }?.kind
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 4)
        #expect(outcomes.filter { $0 == .rateLimited }.count == 8)
    }
}
