import Foundation
import OTPEngine
import OTPSQLite
import Testing

/// A start's one store step (`VerificationStore.start(_:now:reply:)`), on every store: all of it or none of it.
@Suite struct StartStepTests {
    private static let t0 = StoreConformanceTests.t0

    /// A permit of one per hour: a second take within the hour is refused, so it shows whether the first was taken.
    private static func once(_ key: String) -> RatePermit {
        RatePermit(key: key, limit: RateLimit(limit: 1, window: .seconds(3600)))
    }

    @Test(
        "a start's step takes every permit and stores the record with its claim",
        arguments: StoreKind.allCases)
    func inserted(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let claim = IdempotencyClaim(key: "k-in", fingerprint: "fp", expiresAt: StoreConformanceTests.at(300))
        let record = StoreConformanceTests.sample("vf_in")
        let outcome = try await store.insert(
            record, claim: claim, taking: [Self.once("sd:in"), Self.once("sa:in")], now: Self.t0)
        #expect(outcome == .inserted)
        #expect(try await store.record(id: "vf_in") == record)
        #expect(
            try await store.idempotencyEntry(key: "k-in", now: Self.t0)
                == IdempotencyEntry(verificationID: "vf_in", fingerprint: "fp", expiresAt: claim.expiresAt))
        for key in ["sd:in", "sa:in"] {
            guard case .denied = try await store.acquire([Self.once(key)], now: Self.t0) else {
                Issue.record("\(key) was not taken")
                continue
            }
        }
        await store.shutdown()
    }

    @Test(
        "a refused permit leaves the record unstored, the claim free and the other permits untaken",
        arguments: StoreKind.allCases)
    func denied(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        #expect(try await store.acquire([Self.once("sa:busy")], now: Self.t0) == .allowed)
        let claim = IdempotencyClaim(
            key: "k-denied", fingerprint: "fp", expiresAt: StoreConformanceTests.at(300))
        let outcome = try await store.insert(
            StoreConformanceTests.sample("vf_denied"), claim: claim,
            taking: [Self.once("sd:free"), Self.once("sa:busy")], now: Self.t0)
        guard case .denied(let wait, let key) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(key == "sa:busy")
        #expect(wait == 3_600_000)
        #expect(try await store.record(id: "vf_denied") == nil)
        #expect(try await store.idempotencyEntry(key: "k-denied", now: Self.t0) == nil)
        #expect(try await store.acquire([Self.once("sd:free")], now: Self.t0) == .allowed)
        await store.shutdown()
    }

    @Test(
        "a live idempotency key replays before any permit is judged, and nothing is taken or stored",
        arguments: StoreKind.allCases)
    func replay(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let claim = IdempotencyClaim(
            key: "k-live", fingerprint: "fp", expiresAt: StoreConformanceTests.at(300))
        #expect(
            try await store.insert(StoreConformanceTests.sample("vf_first"), claim: claim, now: Self.t0)
                == .inserted)
        // Even a permit that would be refused does not hide the replay.
        #expect(try await store.acquire([Self.once("sa:spent")], now: Self.t0) == .allowed)
        let again = IdempotencyClaim(
            key: "k-live", fingerprint: "fp2", expiresAt: StoreConformanceTests.at(400))
        let outcome = try await store.insert(
            StoreConformanceTests.sample("vf_second"), claim: again,
            taking: [Self.once("sd:untouched"), Self.once("sa:spent")], now: StoreConformanceTests.at(10))
        #expect(
            outcome
                == .replay(
                    IdempotencyEntry(
                        verificationID: "vf_first", fingerprint: "fp", expiresAt: claim.expiresAt)))
        #expect(try await store.record(id: "vf_second") == nil)
        #expect(try await store.acquire([Self.once("sd:untouched")], now: Self.t0) == .allowed)
        await store.shutdown()
    }

    @Test("a failed SQLite step takes and stores nothing: a record whose id is already stored fails it all")
    func failedStep() async throws {
        let store = try SQLiteStore(path: temporaryDirectory() + "/start-step.sqlite3")
        let record = StoreConformanceTests.sample("vf_twice")
        #expect(try await store.insert(record, claim: nil, now: Self.t0) == .inserted)
        await #expect(throws: StoreError.self) {
            _ = try await store.insert(record, claim: nil, taking: [Self.once("sd:rolled")], now: Self.t0)
        }
        #expect(try await store.acquire([Self.once("sd:rolled")], now: Self.t0) == .allowed)
        await store.shutdown()
    }

    @Test(
        "starts take their permits in the store's one step: the limits hold, refusals send nothing",
        arguments: StoreKind.allCases)
    func verifierUsesTheStep(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        let sender = RecordingSender()
        let policy = Policy(startsPerDestination: RateLimit(limit: 2, window: .seconds(3600)))
        let verifier = Verifier(
            store: store, sender: sender, policy: policy, secret: Array(repeating: 9, count: 32))
        for _ in 0..<2 {
            _ = try await verifier.start(StartRequest(to: "+15555550123", clientAddress: "192.0.2.7"))
        }
        await #expect(throws: VerifierError.self) {
            _ = try await verifier.start(StartRequest(to: "+15555550123", clientAddress: "192.0.2.7"))
        }
        #expect(await sender.messages.count == 2)
        await store.shutdown()
    }
}
