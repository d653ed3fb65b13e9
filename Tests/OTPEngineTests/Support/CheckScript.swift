import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport

/// A seeded script of checks, run once through the asynchronous check and once through a faster
/// path (the immediate check, the queued check), to hold the two to the same answers and record.
enum CheckScript {
    /// One step of a script.
    enum Step: CaseIterable {
        case right, wrong, malformed, unknownID, otherAddress, advanceMinute
    }

    /// A faster path's answer to a check, or `nil` when it leaves the check to the asynchronous one.
    typealias FastPath =
        @Sendable (
            _ verifier: Verifier, _ id: String, _ code: String, _ address: String
        ) async -> Result<Verification, VerifierError>?

    /// Limits low enough that scripts meet them as often as the lock and the approval.
    static let policy = relaxedPolicy {
        $0.maxAttempts = 6
        $0.checksPerAddress = RateLimit(limit: 4, window: .seconds(600))
        $0.failedChecksPerDestination = RateLimit(limit: 3, window: .seconds(600))
    }

    /// Sixteen steps from `seed`, weighted so most scripts meet a limit, the lock or the expiry
    /// before an approval.
    static func steps(seed: UInt64) -> [Step] {
        var script = SeededGenerator(seed: seed)
        let weighted: [Step] = [
            .wrong, .wrong, .wrong, .wrong, .otherAddress, .otherAddress, .malformed, .malformed, .unknownID,
            .advanceMinute, .advanceMinute, .right,
        ]
        return (0..<16).map { _ in weighted[Int.random(in: weighted.indices, using: &script)] }
    }

    /// Runs the steps on a fresh store twice, asynchronously and then through `fast`.
    ///
    /// Returns both transcripts and the verification each run leaves. Where `fast` answers `nil`, the
    /// step goes the asynchronous way if `fallsBack` allows it, and reads `nil` otherwise.
    static func transcripts(
        _ steps: [Step], seed: UInt64, store makeStore: () async throws -> any VerificationStore,
        fast: @escaping FastPath, fallsBack: (Step) -> Bool
    ) async throws -> (transcripts: [[String]], finals: [Verification]) {
        var transcripts: [[String]] = []
        var finals: [Verification] = []
        for useFast in [false, true] {
            let harness = Harness(
                store: try await makeStore(), policy: policy, random: SeededGenerator(seed: seed))
            let (started, code) = try await harness.started()
            var transcript: [String] = []
            for step in steps {
                transcript.append(
                    await run(
                        step, harness, id: started.id, code: code, fast: useFast ? fast : nil,
                        fallsBack: fallsBack))
            }
            transcripts.append(transcript)
            finals.append(try await harness.verifier.status(id: started.id))
            await harness.store.shutdown()
        }
        return (transcripts, finals)
    }

    private static func run(
        _ step: Step, _ harness: Harness, id: String, code: String, fast: FastPath?, fallsBack: (Step) -> Bool
    ) async -> String {
        var candidate = Harness.wrong(code)
        var idToCheck = id
        var address = "192.0.2.1"
        switch step {
        case .right: candidate = code
        case .wrong: break
        case .malformed: candidate = "12"
        case .unknownID:
            candidate = code
            idToCheck = "ver_" + String(repeating: "A", count: 22)
        case .otherAddress: address = "198.51.100.7"
        case .advanceMinute:
            harness.clock.advance(by: .seconds(60))
            return "advanced"
        }
        var result = await fast?(harness.verifier, idToCheck, candidate, address)
        if fast != nil, result == nil, !fallsBack(step) { return "nil" }
        if result == nil {
            do throws(VerifierError) {
                result = .success(
                    try await harness.verifier.check(id: idToCheck, code: candidate, clientAddress: address))
            } catch {
                result = .failure(error)
            }
        }
        switch result {
        case .success(let verification): return "ok \(verification.status) \(verification.attemptsLeft)"
        case .failure(let error): return "error \(error)"
        case nil: return "nil"
        }
    }
}
