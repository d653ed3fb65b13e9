import Foundation
import OTPCore
import OTPServer

/// A verifier over a store with one verification that takes wrong codes for as long as the benchmark runs.
///
/// The policy gives the code millions of attempts and the limits room for millions of
/// checks, so every check goes the whole way: fetch, rate limits, attempt, comparison.
final class EngineLoad: Sendable {
    let verifier: Verifier
    let id: String
    let wrongCode: String

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
    }

    /// One check with a wrong code; anything but `incorrect_code` is a benchmark failure.
    func wrongCheck() async throws {
        do {
            _ = try await verifier.check(id: id, code: wrongCode, clientAddress: "192.0.2.1")
            throw LoadError("a wrong code was approved")
        } catch let error as VerifierError where error.kind == .incorrectCode {
            return
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
