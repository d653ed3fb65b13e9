import Foundation
import OTPCore
import OTPDelivery
import OTPEngine
import Testing

@testable import OTPHTTP

/// The start guard is asked only when a start (or a publishable key's resend) would send a code.
@Suite struct StartGuardOrderTests {
    static let ios = PublishableKeyTests.ios

    func harness(
        _ stub: GuardStub, policy: Policy = Policy(), _ body: (Harness) async throws -> Void
    ) async throws {
        let guardian = try WebhookStartGuard(
            url: stub.url, secret: Array("guard-secret".utf8), timeout: .seconds(20))
        try await Harness.with(
            policy: policy, publishableKeys: ["ios": Self.ios],
            startGuard: StartGuardSettings(guardian: guardian),
            body)
    }

    @Test("starts refused by the per-address limit make no guard call")
    func limitsFirst() async throws {
        let stub = try GuardStub()
        var policy = Policy()
        policy.ownerStartsPerAddress = RateLimit(limit: 2, window: .seconds(3600))
        try await harness(stub, policy: policy) { harness in
            var statuses: [Int] = []
            for index in 0..<12 {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"+1201555011\#(index % 10)"}"#,
                    key: .some(Self.ios))
                statuses.append(response.status)
            }
            #expect(statuses.filter { $0 == 201 }.count == 2)
            #expect(statuses.filter { $0 == 429 }.count == 10)
            #expect(stub.bodies.count == 2, "only the starts the limits let through were put to the guard")
        }
        await stub.stop()
    }

    @Test(
        "the guard hears a keyed hash of the number, its calling code and first national digits, never the number"
    )
    func whatTheGuardHears() async throws {
        let stub = try GuardStub()
        try await harness(stub) { harness in
            for to in ["+12015550140", "+12015550140", "+12015550141"] {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: #"{"to":"\#(to)","proof":"p"}"#, key: .some(Self.ios))
                #expect(response.status == 201)
            }
            let objects = try stub.bodies.map {
                try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
            }
            #expect(objects.count == 3)
            #expect(objects[0]["callingCode"] as? String == "1")
            #expect(objects[0]["nationalPrefix"] as? String == "201")
            #expect(objects[0]["isResend"] as? Bool == false)
            let hashes = objects.compactMap { $0["destinationHash"] as? String }
            #expect(hashes.count == 3)
            #expect(hashes[0].count == 32)
            #expect(hashes[0] == hashes[1], "the same number, the same hash")
            #expect(hashes[0] != hashes[2])
            for body in stub.bodies {
                #expect(!String(decoding: body, as: UTF8.self).contains("5550140"))
            }
        }
        await stub.stop()
    }

    @Test("a publishable key's resend is judged too; a refused resend sends nothing and keeps the code")
    func resendsJudged() async throws {
        let stub = try GuardStub()
        try await harness(stub) { harness in
            let started = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550150"}"#, key: .some(Self.ios))
            let id = try #require(started.json["id"] as? String)
            let first = try harness.code(for: id)
            harness.clock.advance(seconds: 31)
            stub.answer(#"{"allow":false,"reason":"too many resends"}"#)
            let refused = try await harness.call(
                "POST", "/v1/verifications/\(id)/resend", key: .some(Self.ios))
            #expect(refused.status == 403)
            #expect(refused.errorCode == "start_refused")
            #expect(refused.errorField("message") as? String == "too many resends")
            #expect(harness.sends(for: id) == 1)
            let judged = try #require(stub.bodies.last)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(judged)) as? [String: Any])
            #expect(object["isResend"] as? Bool == true)
            #expect(object["keyName"] as? String == "ios")
            // The first code still works.
            let good = try await harness.call(
                "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(first)"}"#, key: .some(Self.ios))
            #expect(good.status == 200)
            // A secret key's resend is not judged (the guard applies to publishable keys here).
            let count = stub.bodies.count
            let server = try await harness.start("+12015550151")
            harness.clock.advance(seconds: 31)
            let resent = try await harness.call("POST", "/v1/verifications/\(server)/resend")
            #expect(resent.status == 200)
            #expect(stub.bodies.count == count)
        }
        await stub.stop()
    }

    @Test("a hosted page's resend is judged when the guard judges secret keys' starts, and only then")
    func hostedResendsJudged() async throws {
        for secretKeysJudged in [true, false] {
            let stub = try GuardStub()
            let guardian = try WebhookStartGuard(
                url: stub.url, secret: Array("guard-secret".utf8), timeout: .seconds(20))
            try await Harness.with(
                hosted: HostedPageTests.pages(),
                startGuard: StartGuardSettings(guardian: guardian, appliesToSecretKeys: secretKeysJudged)
            ) { harness in
                let (id, path) = try await HostedPageTests().startHosted(harness)
                #expect(stub.bodies.count == (secretKeysJudged ? 1 : 0), "the start, by a secret key")
                harness.clock.advance(seconds: 31)
                stub.answer(#"{"allow":false,"reason":"too many resends"}"#)
                let resend = try await harness.call("POST", path + "/resend", json: "{}", key: .some(nil))
                if secretKeysJudged {
                    #expect(resend.status == 403)
                    #expect(resend.errorCode == "start_refused")
                    #expect(harness.sends(for: id) == 1)
                    let judged = try #require(stub.bodies.last)
                    let object = try #require(
                        try JSONSerialization.jsonObject(with: Data(judged)) as? [String: Any])
                    #expect(object["isResend"] as? Bool == true)
                    // The form says so in the page's words, not as a failure to reach the server.
                    let form = try await RawHTTP.request(
                        port: harness.port, method: "POST", path: path + "/resend",
                        headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "x=1")
                    #expect(form.status == 403)
                    let page = String(decoding: form.body, as: UTF8.self)
                    #expect(page.contains(HostedPageHTML.escape(ScreenText.english.startRefused)))
                    #expect(harness.sends(for: id) == 1)
                } else {
                    #expect(resend.status == 200)
                    #expect(stub.bodies.isEmpty)
                    #expect(harness.sends(for: id) == 2)
                }
            }
            await stub.stop()
        }
    }
}
