import Foundation
import OTPCore
import OTPServer
import Testing

/// The check the HTTP threads run without suspending (`Verifier.checkImmediately`) must answer,
/// and change the store, exactly as the asynchronous check does.
@Suite struct ImmediateCheckTests {
    /// The stores that judge a check on the caller's thread: the memory store, which the verifier
    /// judges on a path of its own, and one that is only an ``ImmediateCheckStore`` to the verifier.
    /// (SQLite judged on the HTTP threads was measured slower than on its own queue, so it is not
    /// one.)
    enum ImmediateKind: String, CaseIterable, Sendable {
        case memory
        case forwarding

        func makeStore() throws -> any VerificationStore {
            switch self {
            case .memory: MemoryStore()
            case .forwarding: ForwardingImmediateStore()
            }
        }
    }

    @Test(
        "seeded scripts of checks give the same answers and leave the same record, immediate or not",
        arguments: ImmediateKind.allCases, 0..<12)
    func sameAsAsynchronous(kind: ImmediateKind, seed: UInt64) async throws {
        let steps = CheckScript.steps(seed: seed)
        let (transcripts, finals) = try await CheckScript.transcripts(
            steps, seed: 1000 + seed, store: { try kind.makeStore() },
            fast: { verifier, id, code, address in
                verifier.checkImmediately(id: id, code: code, clientAddress: address)
            },
            // Only a malformed code may take the asynchronous path.
            fallsBack: { $0 == .malformed })
        #expect(transcripts[0] == transcripts[1], "steps: \(steps)")
        #expect(finals[0] == finals[1])
        #expect(!transcripts[1].contains("nil"))
    }

    @Test("each outcome, judged on the caller's thread", arguments: ImmediateKind.allCases)
    func outcomes(kind: ImmediateKind) async throws {
        let policy = relaxedPolicy {
            $0.maxAttempts = 2
            $0.checksPerAddress = RateLimit(limit: 100, window: .seconds(3600))
        }
        let harness = Harness(store: try kind.makeStore(), policy: policy)
        let (first, code) = try await harness.started()
        let check = { (id: String, code: String) in
            harness.verifier.checkImmediately(id: id, code: code, clientAddress: "192.0.2.1")
        }
        #expect(check(first.id, Harness.wrong(code)) == .failure(.incorrectCode(attemptsLeft: 1)))
        #expect(check(first.id, Harness.wrong(code)) == .failure(.incorrectCode(attemptsLeft: 0)))
        #expect(check(first.id, code) == .failure(.locked))
        #expect(check("not-an-id", code) == .failure(.notFound))
        #expect(check("ver_" + String(repeating: "B", count: 22), code) == .failure(.notFound))
        #expect(check(first.id, "1") == .failure(.locked), "a lock is judged before the format")

        let (second, secondCode) = try await harness.started(to: "+15555550101")
        #expect(check(second.id, "1") == nil, "a malformed code takes the asynchronous path")
        let approved = try #require(try check(second.id, secondCode)?.get())
        #expect(approved.status == .approved)
        #expect(check(second.id, secondCode) == .failure(.notPending))

        let (third, thirdCode) = try await harness.started(to: "+15555550102")
        harness.clock.advance(by: policy.codeLifetime + .seconds(1))
        #expect(check(third.id, thirdCode) == .failure(.expired(attemptsLeft: 2)))
        await harness.store.shutdown()
    }

    @Test("the memory store notes events on the caller's thread: the last attempt's, and an approval")
    func events() async throws {
        let policy = relaxedPolicy {
            $0.maxAttempts = 2
            $0.checksPerAddress = RateLimit(limit: 100, window: .seconds(3600))
        }
        let store = MemoryStore(recordsEvents: true)
        let harness = Harness(store: store, policy: policy)
        let check = { (id: String, code: String) in
            harness.verifier.checkImmediately(id: id, code: code, clientAddress: "192.0.2.1")
        }
        // The first check of a verification loads its record; the ones after take the short path.
        let (first, code) = try await harness.started()
        #expect(check(first.id, Harness.wrong(code)) == .failure(.incorrectCode(attemptsLeft: 1)))
        #expect(check(first.id, Harness.wrong(code)) == .failure(.incorrectCode(attemptsLeft: 0)))
        let (second, secondCode) = try await harness.started(to: "+15555550101")
        #expect(check(second.id, Harness.wrong(secondCode)) == .failure(.incorrectCode(attemptsLeft: 1)))
        #expect(try check(second.id, secondCode)?.get().status == .approved)

        var kinds: [String: [LifecycleEvent.Kind]] = [:]
        let later = harness.clock.date.addingTimeInterval(3600)
        while case let batch = try store.claimEvents(now: later, leaseUntil: later, limit: 100),
            !batch.isEmpty
        {
            for claimed in batch {
                kinds[claimed.event.verificationID, default: []].append(claimed.event.kind)
                try store.eventDelivered(id: claimed.event.id)
            }
        }
        #expect(kinds[first.id] == [.pending, .maxAttemptsReached])
        #expect(kinds[second.id] == [.pending, .approved])
    }

    @Test("a store that is not immediate leaves every check to the asynchronous path")
    func otherStores() async throws {
        let harness = Harness(store: FaultyStore())
        let (started, code) = try await harness.started()
        #expect(
            harness.verifier.checkImmediately(id: started.id, code: code, clientAddress: "192.0.2.1") == nil)
        #expect(try await harness.verifier.status(id: started.id).status == .pending)
    }

    @Test("a shut-down store answers store_unavailable, immediately", arguments: ImmediateKind.allCases)
    func shutDown(kind: ImmediateKind) async throws {
        let harness = Harness(store: try kind.makeStore())
        let (started, code) = try await harness.started()
        await harness.store.shutdown()
        let answer = harness.verifier.checkImmediately(id: started.id, code: code, clientAddress: "192.0.2.1")
        guard case .failure(let error) = answer else {
            Issue.record("expected a failure, got \(String(describing: answer))")
            return
        }
        #expect(error.kind == .storeUnavailable)
    }
}
