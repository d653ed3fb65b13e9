import Foundation
import OTPCore
import OTPEngine

/// A verifier over a store with verifications that take wrong codes for as long as the benchmark runs.
///
/// The policy gives each code millions of attempts and the limits room for millions of
/// checks, so every check goes the whole way: fetch, rate limits, attempt, comparison.
/// Caller `n` checks verification `n` from its own client address (up to 250 callers; more share
/// addresses), as the users (or bots) of a server each check their own: a verification locks after a few wrong codes, so guessing at scale
/// spreads over many.
/// Checks take the path the HTTP server takes: ``Verifier/check(id:code:clientAddress:reply:)``,
/// read on the caller's thread when the store answers there (the memory store), else awaited.
final class EngineLoad: Sendable {
    let verifier: Verifier
    /// One per caller.
    let callers: [Caller]
    /// Whether the store answers checks on the caller's thread.
    let immediate: Bool

    /// A verification and the client address that checks it, with a code that is not its code.
    struct Caller: Sendable {
        let id: String
        let clientAddress: String
        let wrongCode: String
    }

    /// Starts a verification per caller; `answersInline` says whether the store answers on the
    /// caller's thread (the memory store), which the benchmark then holds it to.
    init(store: any VerificationStore, callers count: Int, answersInline: Bool) async throws {
        // A year of room (an interval of whole milliseconds between permits, as the HTTP benchmark).
        let plenty = RateLimit(limit: 1_000_000_000, window: .seconds(31_536_000))
        let policy = Policy(
            maxAttempts: 100_000_000, codeLifetime: .seconds(3600), startsPerDestination: plenty,
            startsPerAddress: plenty, checksPerAddress: plenty, failedChecksPerDestination: plenty)
        let sender = CapturingSender()
        var secret = SystemRandomNumberGenerator()
        verifier = Verifier(
            store: store, sender: sender, policy: policy,
            secret: (0..<32).map { _ in UInt8.random(in: 0...255, using: &secret) })
        var callers: [Caller] = []
        for number in 0..<max(1, count) {
            let address = "192.0.2.\(number % 250 + 1)"
            let started = try await verifier.start(
                StartRequest(to: "+1555555\(String(1000 + number).suffix(4))", clientAddress: address))
            let code = await sender.lastCode ?? "000000"
            callers.append(
                Caller(
                    id: started.verification.id, clientAddress: address,
                    wrongCode: code == "000000" ? "111111" : "000000"))
        }
        self.callers = callers
        // Told, not guessed from a first call: a store that answers on a thread of its own can
        // finish before the call returns, and a guess from that once made every later check fail.
        immediate = answersInline
        if answersInline, Self.inline(verifier, callers[0]) == nil {
            throw LoadError("the store was to answer on the caller's thread and did not")
        }
    }

    /// The answer to a wrong check by `caller` when the store gave it before the call returned, or
    /// `nil` when it answers on a thread of its own.
    private static func inline(_ verifier: Verifier, _ caller: Caller) -> Result<Verification, VerifierError>?
    {
        let answer = Locked<Result<Verification, VerifierError>?>(nil)
        verifier.check(id: caller.id, code: caller.wrongCode, clientAddress: caller.clientAddress) { result in
            answer.withLock { $0 = result }
        }
        return answer.withLock { $0 }
    }

    /// One check with a wrong code by caller `number`; anything but `incorrect_code` is a benchmark failure.
    func wrongCheck(by number: Int = 0) async throws {
        if immediate {
            return try wrongCheckImmediately(by: number)
        }
        let caller = callers[number]
        let outcome: Result<Verification, VerifierError>
        do throws(VerifierError) {
            outcome = .success(
                try await verifier.check(
                    id: caller.id, code: caller.wrongCode, clientAddress: caller.clientAddress))
        } catch {
            outcome = .failure(error)
        }
        try Self.expectIncorrect(outcome)
    }

    /// One check with a wrong code by caller `number` on the caller's thread, when ``immediate``.
    func wrongCheckImmediately(by number: Int = 0) throws {
        let caller = callers[number]
        guard let outcome = Self.inline(verifier, caller) else {
            throw LoadError("the check left the caller's thread")
        }
        try Self.expectIncorrect(outcome)
    }

    private static func expectIncorrect(_ outcome: Result<Verification, VerifierError>) throws {
        switch outcome {
        case .success: throw LoadError("a wrong code was approved")
        case .failure(let error) where error.kind == .incorrectCode: return
        case .failure(let error):
            throw LoadError("a wrong code was answered \(error.kind), not incorrect_code")
        }
    }
}

/// Keeps the code of the last message, which only the benchmark itself reads.
actor CapturingSender: CodeSender {
    private(set) var lastCode: String?

    func send(_ message: OutgoingMessage) throws(DeliveryError) {
        guard let range = message.text.range(of: "code is ") else { return }
        lastCode = String(message.text[range.upperBound...].prefix(while: \.isNumber))
    }
}

/// The benchmark could not run as designed.
struct LoadError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
