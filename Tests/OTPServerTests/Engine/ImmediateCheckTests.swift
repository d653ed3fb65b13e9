import Foundation
import OTPCore
import OTPServer
import Testing

/// The check the HTTP threads run without suspending (`Verifier.checkImmediately`) must answer,
/// and change the store, exactly as the asynchronous check does.
@Suite struct ImmediateCheckTests {
    /// The stores that judge a check on the caller's thread: the memory store. (SQLite judged on
    /// the HTTP threads was measured slower than on its own queue, so it is not one.)
    enum ImmediateKind: String, CaseIterable, Sendable {
        case memory

        func makeStore() throws -> any VerificationStore {
            MemoryStore()
        }
    }

    /// One step of a check script.
    enum Step: CaseIterable {
        case right, wrong, malformed, unknownID, otherAddress, advanceMinute
    }

    private static func run(
        _ step: Step, _ harness: Harness, id: String, code: String, immediate: Bool
    ) async -> String {
        let candidate: String
        var idToCheck = id
        var address = "192.0.2.1"
        switch step {
        case .right: candidate = code
        case .wrong: candidate = Harness.wrong(code)
        case .malformed: candidate = "12"
        case .unknownID:
            candidate = code
            idToCheck = "ver_" + String(repeating: "A", count: 22)
        case .otherAddress:
            candidate = Harness.wrong(code)
            address = "198.51.100.7"
        case .advanceMinute:
            harness.clock.advance(by: .seconds(60))
            return "advanced"
        }
        let result: Result<Verification, VerifierError>
        if immediate {
            guard
                let answer = harness.verifier.checkImmediately(
                    id: idToCheck, code: candidate, clientAddress: address)
            else {
                // Only a malformed code may take the asynchronous path.
                return step == .malformed
                    ? await run(step, harness, id: id, code: code, immediate: false) : "nil"
            }
            result = answer
        } else {
            do throws(VerifierError) {
                result = .success(
                    try await harness.verifier.check(id: idToCheck, code: candidate, clientAddress: address))
            } catch {
                result = .failure(error)
            }
        }
        switch result {
        case .success(let verification):
            return "ok \(verification.status) \(verification.attemptsLeft)"
        case .failure(let error):
            return "error \(error)"
        }
    }

    @Test(
        "seeded scripts of checks give the same answers and leave the same record, immediate or not",
        arguments: ImmediateKind.allCases, 0..<12)
    func sameAsAsynchronous(kind: ImmediateKind, seed: UInt64) async throws {
        var script = SeededGenerator(seed: seed)
        // Weighted so most scripts meet a limit, the lock or the expiry before an approval.
        let weighted: [Step] = [
            .wrong, .wrong, .wrong, .wrong, .otherAddress, .otherAddress, .malformed, .malformed, .unknownID,
            .advanceMinute, .advanceMinute, .right,
        ]
        let steps = (0..<16).map { _ in weighted.randomElement(using: &script)! }
        let policy = relaxedPolicy {
            // Low enough that scripts meet the limits as often as the lock and the approval.
            $0.maxAttempts = 6
            $0.checksPerAddress = RateLimit(limit: 4, window: .seconds(600))
            $0.failedChecksPerDestination = RateLimit(limit: 3, window: .seconds(600))
        }
        var transcripts: [[String]] = []
        var finals: [Verification] = []
        for immediate in [false, true] {
            let harness = Harness(
                store: try kind.makeStore(), policy: policy, random: SeededGenerator(seed: 1000 + seed))
            let (started, code) = try await harness.started()
            var transcript: [String] = []
            for step in steps {
                transcript.append(
                    await Self.run(step, harness, id: started.id, code: code, immediate: immediate))
            }
            transcripts.append(transcript)
            finals.append(try await harness.verifier.status(id: started.id))
            await harness.store.shutdown()
        }
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
