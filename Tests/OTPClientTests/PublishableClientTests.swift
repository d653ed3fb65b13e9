import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPServe
import Testing

@testable import OTPClient

/// A start guard that records what it was shown and allows only one proof.
final class RecordingGuard: StartGuard, @unchecked Sendable {
    private let lock = NSLock()
    private var proofs: [String?] = []

    var seen: [String?] { lock.withLock { proofs } }

    func judge(_ start: GuardedStart) async -> StartGuardVerdict {
        lock.withLock { proofs.append(start.proof) }
        return start.proof == "attested" ? .allow : .refuse(reason: "no attestation")
    }
}

@Suite struct PublishableClientTests {
    @Test("an app's client with a publishable key sends its proof, and reads the approval token")
    func publishableClient() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-client-pk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = directory.appendingPathComponent("outbox.jsonl").path
        let guardian = RecordingGuard()
        let key = "pk_app_0123456789abcdefghijk"
        let running = try await ServeAssembly.start(
            ServeSettings(
                server: ServerConfiguration(
                    host: "127.0.0.1", port: 0, apiKeys: ["server-secret-key"], requestLog: .silent,
                    publishableKeys: ["app": key], startGuard: StartGuardSettings(guardian: guardian)),
                store: .memory, senders: [.outbox(path: outbox)]))
        let baseURL = try #require(URL(string: running.url))
        let client = VerificationClient(baseURL: baseURL, publishableKey: key, proof: { "attested" })
        let verification = try await client.start(to: "+12015550100", channel: nil)
        // The client sends a start again, with the same key, after a network error (a slow machine's
        // timeout): the guard then sees the proof twice, and the server still sends one code.
        let firstStart = guardian.seen
        #expect(!firstStart.isEmpty && firstStart.allSatisfy { $0 == "attested" }, "\(firstStart)")
        let body = try String(contentsOfFile: outbox, encoding: .utf8)
        #expect(body.split(separator: "\n").count == 1, "one code sent")
        let code = try #require(body.range(of: "code is ").map { String(body[$0.upperBound...].prefix(6)) })
        let approved = try await client.check(id: verification.id, code: code)
        #expect(approved.status == .approved)
        let token = try #require(approved.approvalToken)
        #expect(token.split(separator: ".").count == 3)
        let unproven = VerificationClient(baseURL: baseURL, publishableKey: key)
        await #expect(throws: VerificationFailure.self) {
            _ = try await unproven.start(to: "+12015550101", channel: nil)
        }
        #expect(guardian.seen.dropFirst(firstStart.count).allSatisfy { $0 == nil })
        #expect(guardian.seen.count > firstStart.count, "the start without a proof was asked about")
        await running.stop()
    }
}
