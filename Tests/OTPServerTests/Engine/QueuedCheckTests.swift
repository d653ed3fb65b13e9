import Foundation
import OTPCore
import OTPServer
import Testing

/// The check a queued store answers on its own thread (`Verifier.checkQueued`) must answer, and
/// change the store, exactly as the asynchronous check does.
@Suite struct QueuedCheckTests {
    /// The stores that answer a check from their own queue: SQLite and Redis.
    enum QueuedKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite
        case redis

        var testDescription: String { rawValue }

        func makeStore() async throws -> any VerificationStore {
            try await (self == .sqlite ? StoreKind.sqlite : StoreKind.redis).makeStore()
        }
    }

    /// The queued check's answer, or `nil` when the verifier left it to the asynchronous path.
    static func queued(
        _ verifier: Verifier, id: String, code: String, address: String = "192.0.2.1"
    ) async -> Result<Verification, VerifierError>? {
        let box = AnswerBox()
        let taken = verifier.checkQueued(id: id, code: code, clientAddress: address) { box.put($0) }
        guard taken else { return nil }
        return await box.value()
    }

    @Test(
        "seeded scripts of checks give the same answers and leave the same record, queued or not",
        arguments: QueuedKind.allCases, 0..<8)
    func sameAsAsynchronous(kind: QueuedKind, seed: UInt64) async throws {
        let steps = CheckScript.steps(seed: seed)
        let (transcripts, finals) = try await CheckScript.transcripts(
            steps, seed: 2000 + seed, store: { try await kind.makeStore() },
            fast: { verifier, id, code, address in
                await Self.queued(verifier, id: id, code: code, address: address)
            },
            // A verification not seen yet, an unknown id or a malformed code is left to the asynchronous path.
            fallsBack: { _ in true })
        #expect(transcripts[0] == transcripts[1], "steps: \(steps)")
        #expect(finals[0] == finals[1])
    }

    @Test("each outcome, answered from the store's queue", arguments: QueuedKind.allCases)
    func outcomes(kind: QueuedKind) async throws {
        let policy = relaxedPolicy {
            $0.maxAttempts = 2
            $0.checksPerAddress = RateLimit(limit: 100, window: .seconds(3600))
        }
        let harness = Harness(store: try await kind.makeStore(), policy: policy)
        let verifier = harness.verifier
        let (first, code) = try await harness.started()
        #expect(await Self.queued(verifier, id: first.id, code: code) == nil, "a verification not seen yet")
        _ = try? await verifier.status(id: first.id)
        // The asynchronous check remembers the verification; later checks may be queued.
        #expect(
            await verifierError { () async throws(VerifierError) in
                try await verifier.check(id: first.id, code: Harness.wrong(code), clientAddress: "192.0.2.1")
            } == .incorrectCode(attemptsLeft: 1))
        #expect(
            await Self.queued(verifier, id: first.id, code: Harness.wrong(code))
                == .failure(.incorrectCode(attemptsLeft: 0)))
        #expect(await Self.queued(verifier, id: first.id, code: code) == .failure(.locked))
        #expect(await Self.queued(verifier, id: first.id, code: "1") == nil, "a malformed code")

        let (second, secondCode) = try await harness.started(to: "+15555550101")
        _ = try? await verifier.check(id: second.id, code: "1", clientAddress: "192.0.2.1")
        let approved = try #require(try await Self.queued(verifier, id: second.id, code: secondCode)?.get())
        #expect(approved.status == .approved)
        #expect(await Self.queued(verifier, id: second.id, code: secondCode) == .failure(.notPending))

        let (third, thirdCode) = try await harness.started(to: "+15555550102")
        _ = try? await verifier.check(id: third.id, code: "1", clientAddress: "192.0.2.1")
        harness.clock.advance(by: policy.codeLifetime + .seconds(1))
        #expect(
            await Self.queued(verifier, id: third.id, code: thirdCode) == .failure(.expired(attemptsLeft: 2)))
        await harness.store.shutdown()
    }

    @Test("parallel queued checks take exactly the attempts there are", arguments: QueuedKind.allCases)
    func parallelAttempts(kind: QueuedKind) async throws {
        let policy = relaxedPolicy { $0.maxAttempts = 40 }
        let harness = Harness(store: try await kind.makeStore(), policy: policy)
        let (started, code) = try await harness.started()
        _ = try? await harness.verifier.check(id: started.id, code: "1", clientAddress: "192.0.2.1")
        let answers = await withTaskGroup(of: Result<Verification, VerifierError>?.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await Self.queued(harness.verifier, id: started.id, code: Harness.wrong(code))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let errors = answers.compactMap { (answer) -> VerifierError? in
            if case .failure(let error) = answer { error } else { nil }
        }
        let incorrect = errors.filter { $0.kind == .incorrectCode }
        let attemptsSeen = Set(incorrect.compactMap(\.attemptsLeft))
        #expect(incorrect.count == 40)
        #expect(attemptsSeen == Set(0..<40), "each attempt taken once")
        #expect(errors.filter { $0.kind == .locked }.count == 60)
        #expect(errors.count == 100)
        #expect(try await harness.verifier.status(id: started.id).attemptsLeft == 0)
        await harness.store.shutdown()
    }

    @Test("a store that does not queue leaves every check to the other paths")
    func otherStores() async throws {
        let harness = Harness(store: FaultyStore())
        let (started, code) = try await harness.started()
        _ = try? await harness.verifier.check(id: started.id, code: "1", clientAddress: "192.0.2.1")
        #expect(await Self.queued(harness.verifier, id: started.id, code: code) == nil)
        #expect(try await harness.verifier.status(id: started.id).status == .pending)
    }

    @Test("a shut-down store answers store_unavailable from the queue", arguments: QueuedKind.allCases)
    func shutDown(kind: QueuedKind) async throws {
        let harness = Harness(store: try await kind.makeStore())
        let (started, code) = try await harness.started()
        _ = try? await harness.verifier.check(id: started.id, code: "1", clientAddress: "192.0.2.1")
        await harness.store.shutdown()
        let answer = await Self.queued(harness.verifier, id: started.id, code: code)
        guard case .failure(let error) = answer else {
            Issue.record("expected a failure, got \(String(describing: answer))")
            return
        }
        #expect(error.kind == .storeUnavailable)
    }
}

/// Carries one callback's answer to an awaiting test.
final class AnswerBox: @unchecked Sendable {
    // Guards both fields.
    private let lock = NSLock()
    private var answer: Result<Verification, VerifierError>?
    private var waiter: CheckedContinuation<Result<Verification, VerifierError>, Never>?

    func put(_ value: Result<Verification, VerifierError>) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: value)
        } else {
            answer = value
            lock.unlock()
        }
    }

    func value() async -> Result<Verification, VerifierError> {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let answer {
                lock.unlock()
                continuation.resume(returning: answer)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
