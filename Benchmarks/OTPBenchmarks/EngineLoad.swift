import Foundation
import OTPCore
import OTPServer

/// A verifier over a store with one verification that takes wrong codes for as long as the benchmark runs.
///
/// The policy gives the code millions of attempts and the limits room for millions of
/// checks, so every check goes the whole way: fetch, rate limits, attempt, comparison.
/// Checks take the path the HTTP server takes for the store: on the caller's thread
/// (``Verifier/checkImmediately(id:code:clientAddress:)``) when the store judges there, else the
/// asynchronous ``Verifier/check(id:code:clientAddress:)``.
final class EngineLoad: Sendable {
    let verifier: Verifier
    let id: String
    let wrongCode: String
    /// Whether checks run on the caller's thread.
    let immediate: Bool

    init(store: any VerificationStore) async throws {
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
        let started = try await verifier.start(StartRequest(to: "+15555550100", clientAddress: "192.0.2.1"))
        id = started.verification.id
        let code = await sender.lastCode ?? "000000"
        wrongCode = code == "000000" ? "111111" : "000000"
        immediate = verifier.checkImmediately(id: id, code: wrongCode, clientAddress: "192.0.2.1") != nil
    }

    /// One check with a wrong code; anything but `incorrect_code` is a benchmark failure.
    func wrongCheck() async throws {
        if immediate {
            return try wrongCheckImmediately()
        }
        let outcome: Result<Verification, VerifierError>
        do throws(VerifierError) {
            outcome = .success(try await verifier.check(id: id, code: wrongCode, clientAddress: "192.0.2.1"))
        } catch {
            outcome = .failure(error)
        }
        try Self.expectIncorrect(outcome)
    }

    /// One check with a wrong code on the caller's thread, when ``immediate``.
    func wrongCheckImmediately() throws {
        guard let outcome = verifier.checkImmediately(id: id, code: wrongCode, clientAddress: "192.0.2.1")
        else {
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
