import Foundation
import OTPCore
import OTPDelivery
import OTPEngine
import OTPHTTP
import OTPTokens
import Testing

/// An operator's start guard on loopback: answers each start with the verdict it is told, or
/// holds it longer than the guard waits.
final class GuardStub: @unchecked Sendable {
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var answer = #"{"allow":true}"#
        var status = 200
        var delay: Duration = .zero
        var bodies: [[UInt8]] = []
        var signatures: [String] = []
    }

    private struct Handler: HTTPHandler {
        let state: State

        func handle(_ request: HTTPRequest) -> HTTPReply {
            let (answer, status, delay) = state.lock.withLock {
                state.bodies.append(request.body)
                state.signatures.append(request.headers["x-otp-signature"] ?? "")
                return (state.answer, state.status, state.delay)
            }
            return .later {
                if delay > .zero { try? await Task.sleep(for: delay) }
                return HTTPResponse(
                    status: status, headers: [("Content-Type", "application/json")], body: Array(answer.utf8),
                    route: "/guard")
            }
        }
    }

    private let state = State()
    private let server: HTTPServer

    init() throws {
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, threads: 2, headerNames: ["x-otp-signature"]),
            handler: Handler(state: state))
    }

    var url: String { "http://127.0.0.1:\(server.port)/guard" }

    func answer(_ json: String, status: Int = 200, delay: Duration = .zero) {
        state.lock.withLock {
            state.answer = json
            state.status = status
            state.delay = delay
        }
    }

    var bodies: [[UInt8]] { state.lock.withLock { state.bodies } }
    var signatures: [String] { state.lock.withLock { state.signatures } }

    func stop() async { await server.stop(grace: .zero) }
}

@Suite struct PublishableKeyTests {
    static let ios = "pk_ios_0123456789abcdefghijk"
    static let web = "pk_web_0123456789abcdefghijk"
    static let keys = ["ios": ios, "web": web]

    func start(_ harness: Harness, key: String, to: String = "+12015550100") async throws -> String {
        let response = try await harness.call(
            "POST", "/v1/verifications", json: #"{"to":"\#(to)"}"#, key: .some(key))
        guard response.status == 201, let id = response.json["id"] as? String else {
            throw HarnessError.unexpected(response.status, response.text)
        }
        return id
    }

    @Test("a publishable key sees only its own verifications; another key's, and secret keys', are 404")
    func isolation() async throws {
        try await Harness.with(publishableKeys: Self.keys) { harness in
            let mine = try await start(harness, key: Self.ios)
            let theirs = try await start(harness, key: Self.web, to: "+12015550101")
            let server = try await start(harness, key: harness.key, to: "+12015550102")
            #expect(
                try await harness.call("GET", "/v1/verifications/\(mine)", key: .some(Self.ios)).status == 200
            )
            for id in [theirs, server, "vf_unknown"] {
                let status = try await harness.call("GET", "/v1/verifications/\(id)", key: .some(Self.ios))
                #expect(status.status == 404 && status.errorCode == "not_found", "\(id)")
                let check = try await harness.call(
                    "POST", "/v1/verifications/\(id)/check", json: #"{"code":"123456"}"#, key: .some(Self.ios)
                )
                #expect(check.status == 404, "\(id)")
                let resend = try await harness.call(
                    "POST", "/v1/verifications/\(id)/resend", json: "{}", key: .some(Self.ios))
                #expect(resend.status == 404, "\(id)")
            }
            #expect(harness.sends(for: theirs) == 1, "nothing was resent for another key's verification")
            let secret = try await harness.call("GET", "/v1/verifications/\(mine)")
            #expect(secret.status == 200, "a secret key sees every verification")
        }
    }

    @Test("a publishable key cannot cancel, not even its own verification: 403 forbidden")
    func noCancel() async throws {
        try await Harness.with(publishableKeys: Self.keys) { harness in
            let mine = try await start(harness, key: Self.ios)
            let cancel = try await harness.call(
                "POST", "/v1/verifications/\(mine)/cancel", json: "{}", key: .some(Self.ios))
            #expect(cancel.status == 403)
            #expect(cancel.errorCode == "forbidden")
            let status = try await harness.call("GET", "/v1/verifications/\(mine)")
            #expect(status.json["status"] as? String == "pending")
        }
    }

    @Test("starts through publishable keys have their own, stricter limit per client address")
    func ownLimit() async throws {
        var policy = Policy()
        policy.ownerStartsPerAddress = RateLimit(limit: 2, window: .seconds(3600))
        try await Harness.with(policy: policy, publishableKeys: Self.keys) { harness in
            _ = try await start(harness, key: Self.ios, to: "+12015550110")
            _ = try await start(harness, key: Self.web, to: "+12015550111")
            let third = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550112"}"#, key: .some(Self.ios))
            #expect(third.status == 429)
            #expect(third.errorCode == "rate_limited")
            _ = try await start(harness, key: harness.key, to: "+12015550113")
        }
    }

    @Test(
        "the approving answer carries an approval token for the key's name; it verifies against the key set")
    func approvalToken() async throws {
        try await Harness.with(checkFloor: .zero, publishableKeys: Self.keys) { harness in
            let id = try await start(harness, key: Self.ios)
            let wrong = try harness.code(for: id) == "000000" ? "111111" : "000000"
            let bad = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(wrong)"}"#, key: .some(Self.ios))
            #expect(bad.json["approvalToken"] == nil)
            let good = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(try harness.code(for: id))"}"#,
                key: .some(Self.ios))
            #expect(good.status == 200)
            let token = try #require(good.json["approvalToken"] as? String)
            let keys = try await harness.call("GET", "/.well-known/jwks.json", key: .some(nil))
            let now = harness.clock.now
            let verifier = ApprovalTokenVerifier(
                keySet: try JSONWebKeySet.decode(keys.body), issuer: "otpkit", audience: "ios", now: { now })
            let claims = try verifier.verify(token)
            #expect(claims.sub == id)
            #expect(claims.channel == "sms")
            let other = ApprovalTokenVerifier(
                keySet: try JSONWebKeySet.decode(keys.body), issuer: "otpkit", audience: "web", now: { now })
            #expect(throws: ApprovalTokenError.self) { try other.verify(token) }
            let serverSide = try await start(harness, key: harness.key, to: "+12015550120")
            let approved = try await harness.check(serverSide, try harness.code(for: serverSide))
            #expect(approved.json["approvalToken"] == nil, "secret keys' answers carry none")
        }
    }

    @Test("the start guard: allowed starts send, refused ones are 403 start_refused and send nothing")
    func guardAllowsAndRefuses() async throws {
        let stub = try GuardStub()
        // A long timeout: this test is about verdicts, not about a slow guard, and must hold on a busy machine.
        let guardian = try WebhookStartGuard(
            url: stub.url, secret: Array("guard-secret".utf8), timeout: .seconds(20))
        try await Harness.with(
            publishableKeys: Self.keys, startGuard: StartGuardSettings(guardian: guardian)
        ) { harness in
            let allowed = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550130","proof":"captcha-ok"}"#,
                key: .some(Self.ios))
            #expect(allowed.status == 201)
            let seen = try #require(stub.bodies.last)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(seen)) as? [String: Any])
            #expect(object["proof"] as? String == "captcha-ok")
            #expect(object["keyName"] as? String == "ios")
            #expect(object["callingCode"] as? String == "1")
            #expect(!String(decoding: seen, as: UTF8.self).contains("5550130"), "never the full number")
            let signature = try #require(stub.signatures.last)
            #expect(
                WebhookSender.verify(
                    header: signature, body: seen, secret: Array("guard-secret".utf8), purpose: .guard,
                    now: Date()))
            #expect(
                !WebhookSender.verify(
                    header: signature, body: seen, secret: Array("guard-secret".utf8), purpose: .delivery,
                    now: Date()))
            stub.answer(#"{"allow":false,"reason":"CAPTCHA failed"}"#)
            let refused = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550131"}"#, key: .some(Self.ios))
            #expect(refused.status == 403)
            #expect(refused.errorCode == "start_refused")
            #expect(refused.errorField("message") as? String == "CAPTCHA failed")
            #expect(
                ((try? OutboxSender.entries(path: harness.outbox)) ?? []).count == 1, "one code sent in all")
            let bySecret = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550132"}"#)
            #expect(bySecret.status == 201, "secret keys are not judged unless asked")
            let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(metrics.text.contains(#"otp_start_guard_total{outcome="refused"} 1"#))
        }
        await stub.stop()
    }

    @Test(
        "a guard that is down or slow refuses the start when closed, lets it through when open",
        arguments: [false, true])
    func guardUnavailable(failOpen: Bool) async throws {
        let stub = try GuardStub()
        stub.answer(#"{"allow":true}"#, delay: .seconds(2))
        let slow = try WebhookStartGuard(url: stub.url, secret: [1], timeout: .milliseconds(200))
        let down = try WebhookStartGuard(
            url: "http://127.0.0.1:1/guard", secret: [1], timeout: .milliseconds(200))
        for (index, guardian) in [slow, down].enumerated() {
            try await Harness.with(
                publishableKeys: Self.keys,
                startGuard: StartGuardSettings(
                    guardian: guardian, failOpen: failOpen, appliesToSecretKeys: true)
            ) { harness in
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+1201555014\#(index)"}"#)
                #expect(response.status == (failOpen ? 201 : 403), "\(index == 0 ? "slow" : "down")")
                if !failOpen { #expect(response.errorCode == "start_refused") }
                let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
                #expect(metrics.text.contains(failOpen ? "unavailable_open" : "unavailable_closed"))
            }
        }
        await stub.stop()
    }
}
