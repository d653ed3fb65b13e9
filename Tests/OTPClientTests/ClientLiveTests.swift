import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import OTPServe
import OTPTestSupport
import Testing

@testable import OTPClient

/// A wall clock the tests move by hand; the server reads it for every time it judges.
final class TestWallClock: @unchecked Sendable {
    // Guards `date`.
    private let lock = NSLock()
    private var date = Date(timeIntervalSince1970: 1_795_000_000)

    var now: Date { lock.withLock { date } }

    func advance(seconds: TimeInterval) {
        lock.withLock { date = date.addingTimeInterval(seconds) }
    }
}

/// A server in this process on a free loopback port, with its own outbox and clock, and a client to it.
struct LiveServer {
    let running: RunningServer
    let client: VerificationClient
    let clock: TestWallClock
    let outbox: String
    let directory: URL

    static func start(
        policy: Policy = .default, senders: [SenderSpec]? = nil
    ) async throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-client-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outbox = directory.appendingPathComponent("outbox.jsonl").path
        let clock = TestWallClock()
        var policy = policy
        policy.domain = "example.com"
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, apiKeys: ["client-test-key"], policy: policy, requestLog: .silent,
            now: { clock.now })
        let running = try await ServeAssembly.start(
            ServeSettings(
                server: configuration, store: .memory, senders: senders ?? [.outbox(path: outbox)],
                environment: ["OTP_WEBHOOK_SECRET": "client-test-webhook-secret"]))
        // No test here waits for the timeout: it is long so that a busy parallel run cannot reach it.
        guard let baseURL = URL(string: running.url) else {
            await running.stop()
            throw URLError(.badURL)
        }
        let client = VerificationClient(baseURL: baseURL, apiKey: "client-test-key", timeout: .seconds(30))
        return LiveServer(
            running: running, client: client, clock: clock, outbox: outbox, directory: directory)
    }

    /// The code of the newest message in the outbox, read from its origin-bound last line.
    func lastCode() throws -> String {
        let text = try String(contentsOfFile: outbox, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let body = try #require(object["body"] as? String)
        let last = try #require(body.split(separator: "\n").last)
        return String(try #require(last.split(separator: "#").last))
    }

    func stop() async {
        await running.stop(grace: .seconds(1))
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs a client call expected to fail; returns the wire code it failed with.
func failureCode(_ call: () async throws -> Verification) async -> String? {
    do {
        _ = try await call()
        return nil
    } catch let error as ClientError {
        return error.code
    } catch {
        return "unexpected \(error)"
    }
}

@Suite struct ClientLiveTests {
    @Test("start, check right, status: the happy path over real HTTP")
    func happyPath() async throws {
        let server = try await LiveServer.start()
        let (started, created) = try await server.client.startVerification(to: "+1 201 555 0100")
        #expect(created)
        #expect(started.status == .pending)
        #expect(started.to.hasSuffix("0100") && !started.to.contains("555"))
        let approved = try await server.client.checkCode(id: started.id, code: try server.lastCode())
        #expect(approved.status == .approved)
        #expect(try await server.client.status(id: started.id).status == .approved)
        #expect(
            await failureCode { try await server.client.checkCode(id: started.id, code: "000000") }
                == "not_pending")
        await server.stop()
    }

    @Test(
        "a number in national format starts with its country sent as the hint; without it the server cannot read it"
    )
    func countryHint() async throws {
        let server = try await LiveServer.start()
        #expect(
            await failureCode { try await server.client.startVerification(to: "07400 123456").verification }
                == "invalid_destination")
        let (started, created) = try await server.client.startVerification(to: "07400 123456", country: "GB")
        #expect(created)
        #expect(started.status == .pending)
        let entries = try OutboxSender.entries(path: server.outbox)
        #expect(entries.map(\.to) == ["+447400123456"])
        // The screen's path, through VerificationService, sends it too.
        let service: any VerificationService = server.client
        let answer = try await service.startAnswer(
            to: "07400 123457", channel: .sms, locale: nil, country: "gb")
        #expect(answer.verification.status == .pending)
        #expect(try OutboxSender.entries(path: server.outbox).last?.to == "+447400123457")
        await server.stop()
    }

    @Test("the same idempotency key replays; with another body it is refused")
    func idempotency() async throws {
        let server = try await LiveServer.start()
        let first = try await server.client.startVerification(to: "+12015550100", idempotencyKey: "key-1")
        let again = try await server.client.startVerification(to: "+12015550100", idempotencyKey: "key-1")
        #expect(again.verification.id == first.verification.id)
        #expect(!again.created)
        let code = await failureCode {
            try await server.client.startVerification(to: "+12015550199", idempotencyKey: "key-1")
                .verification
        }
        #expect(code == "idempotency_key_reused")
        await server.stop()
    }

    @Test(
        "a start that got no answer keeps its idempotency key for the same start asked again; any answer ends it"
    )
    func unansweredStartKeepsItsKey() async throws {
        let made = Locked(0)
        let keys: @Sendable () -> String = {
            "start-key-\(made.withLock { count in count += 1; return count })"
        }
        // No server: the start and the client's own retry get no answer; the same start again (Try
        // again) goes out under the same key, so a start the server did take is replayed, not repeated.
        let closed = try ClosedPort()
        let offline = VerificationClient(
            baseURL: URL(string: "http://127.0.0.1:\(closed.port)")!, apiKey: "k", timeout: .seconds(2),
            idempotencyKey: keys)
        for _ in 0..<2 {
            await #expect(throws: VerificationFailure.networkFailure) {
                try await offline.startAnswer(to: "+12015550100", channel: nil, locale: nil, country: nil)
            }
        }
        #expect(made.withLock { $0 } == 1)
        // Another start (another number) is another key.
        await #expect(throws: VerificationFailure.networkFailure) {
            try await offline.startAnswer(to: "+12015550111", channel: nil, locale: nil, country: nil)
        }
        #expect(made.withLock { $0 } == 2)
        withExtendedLifetime(closed) {}
        // Answered, a start lets its key go: the next start, even to the same number, is a new one.
        let server = try await LiveServer.start()
        let online = VerificationClient(
            baseURL: URL(string: server.running.url)!, apiKey: "client-test-key", timeout: .seconds(30),
            idempotencyKey: keys)
        let first = try await online.startAnswer(to: "+12015550100", channel: nil, locale: nil, country: nil)
        let second = try await online.startAnswer(to: "+12015550100", channel: nil, locale: nil, country: nil)
        #expect(made.withLock { $0 } == 4)
        #expect(first.verification.id != second.verification.id)
        // A refusal is an answer too.
        await #expect(throws: VerificationFailure.self) {
            try await online.startAnswer(to: "not a number", channel: nil, locale: nil, country: nil)
        }
        _ = try? await online.startAnswer(to: "not a number", channel: nil, locale: nil, country: nil)
        #expect(made.withLock { $0 } == 6)
        await server.stop()
    }

    @Test("every check answer: format, incorrect, locked, expired, not found, not pending")
    func checkAnswers() async throws {
        let server = try await LiveServer.start()
        let client = server.client
        let id = try await client.startVerification(to: "+12015550100").verification.id
        let right = try server.lastCode()
        let wrong = right == "000000" ? "111111" : "000000"
        let short = await failureCode { try await client.checkCode(id: id, code: "12") }
        #expect(short == "invalid_code_format")
        do {
            _ = try await client.checkCode(id: id, code: wrong)
            Issue.record("a wrong code was approved")
        } catch {
            #expect(
                error
                    == .api(
                        APIError(
                            code: .incorrectCode, message: ScreenText.english.incorrect(attemptsLeft: 2),
                            attemptsLeft: 2)))
            #expect(error.failure == .incorrectCode(attemptsLeft: 2))
        }
        _ = await failureCode { try await client.checkCode(id: id, code: wrong) }
        _ = await failureCode { try await client.checkCode(id: id, code: wrong) }
        #expect(await failureCode { try await client.checkCode(id: id, code: right) } == "locked")
        server.clock.advance(seconds: 301)
        #expect(await failureCode { try await client.checkCode(id: id, code: right) } == "expired")
        #expect(await failureCode { try await client.checkCode(id: "vf_nope", code: right) } == "not_found")
        #expect(await failureCode { try await client.status(id: "vf_nope") } == "not_found")
        let other = try await client.startVerification(to: "+12015550111").verification.id
        #expect(try await client.cancel(id: other).status == .canceled)
        #expect(await failureCode { try await client.cancel(id: other) } == "not_pending")
        #expect(await failureCode { try await client.resendCode(id: other) } == "not_pending")
        await server.stop()
    }

    @Test("resend answers: too soon, a new code, then no sends left")
    func resendAnswers() async throws {
        var policy = Policy.default
        policy.maxSends = 2
        let server = try await LiveServer.start(policy: policy)
        let client = server.client
        let id = try await client.startVerification(to: "+12015550100").verification.id
        do {
            _ = try await client.resendCode(id: id)
            Issue.record("a resend went out during the cooldown")
        } catch {
            #expect(error.code == "resend_too_soon")
            #expect(error.failure == .resendTooSoon(retryAfter: 30))
        }
        server.clock.advance(seconds: 30)
        let resent = try await client.resendCode(id: id)
        #expect(resent.sendsLeft == 0)
        #expect(resent.resendAvailableAt == nil)
        #expect(await failureCode { try await client.resendCode(id: id) } == "max_sends_reached")
        await server.stop()
    }

    @Test("start refusals: bad destination, unsupported channel, rate limit, wrong key")
    func startRefusals() async throws {
        var policy = Policy.default
        policy.startsPerDestination = RateLimit(limit: 1, window: .seconds(3600))
        let server = try await LiveServer.start(policy: policy)
        let client = server.client
        #expect(
            await failureCode { try await client.startVerification(to: "call me").verification }
                == "invalid_destination")
        #expect(
            await failureCode {
                try await client.startVerification(to: "a@example.org", channel: .sms).verification
            }
                == "channel_not_supported")
        _ = try await client.startVerification(to: "+12015550100")
        do {
            _ = try await client.startVerification(to: "+12015550100")
            Issue.record("the per-destination limit let a second start through")
        } catch {
            #expect(error.code == "rate_limited")
            if case .rateLimited(let seconds) = error.failure {
                #expect(seconds > 0)
            } else {
                Issue.record("\(error)")
            }
        }
        let stranger = VerificationClient(baseURL: client.baseURL, apiKey: "wrong-key")
        #expect(await failureCode { try await stranger.status(id: "vf_x") } == "unauthorized")
        await server.stop()
    }

    @Test("a provider that is down gives delivery_failed")
    func deliveryFailed() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let server = try await LiveServer.start(senders: [.webhook(url: "http://127.0.0.1:\(port)/hook")])
        #expect(
            await failureCode { try await server.client.startVerification(to: "+12015550100").verification }
                == "delivery_failed")
        await server.stop()
    }

    @Test("the model drives a whole verification through the client")
    @MainActor
    func modelThroughClient() async throws {
        let server = try await LiveServer.start()
        var verified: Verification?
        let model = VerificationModel(service: server.client) { verified = $0 }
        await model.start(to: "+12015550100")
        #expect(model.destination.hasSuffix("0100"))
        model.setText(try server.lastCode())
        for _ in 0..<2_000 where verified == nil {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(verified?.status == .approved)
        #expect(model.phase == .verified)
        model.stop()
        await server.stop()
    }
}
