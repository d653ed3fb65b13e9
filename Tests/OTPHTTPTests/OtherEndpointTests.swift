import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct OtherEndpointTests {
    @Test("GET a verification answers 200 with it, 404 for an unknown one", arguments: StoreKind.allCases)
    func status(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let found = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(found.status == 200)
            #expect(found.json["id"] as? String == id)
            let missing = try await harness.call("GET", "/v1/verifications/vf_AAAAAAAAAAAAAAAAAAAAAA")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "not_found")
            let malformed = try await harness.call("GET", "/v1/verifications/nope")
            #expect(malformed.status == 404)
        }
    }

    @Test(
        "a resend after the cooldown sends a new code; the old one stops working",
        arguments: StoreKind.allCases)
    func resend(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let old = try harness.code(for: id)
            let early = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(early.status == 429)
            #expect(early.errorCode == "resend_too_soon")
            #expect(early.headers["retry-after"] == "30")
            harness.clock.advance(seconds: 30)
            let response = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(response.status == 200)
            #expect(response.json["status"] as? String == "pending")
            #expect(response.json["sendsLeft"] as? Int == 3)
            #expect(harness.sends(for: id) == 2)
            let new = try harness.code(for: id)
            if new != old {
                #expect(try await harness.check(id, old).status == 422)
            }
            #expect(try await harness.check(id, new).status == 200)
            let approved = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(approved.status == 409)
            #expect(approved.errorCode == "not_pending")
        }
    }

    @Test(
        "sends run out: 429 max_sends_reached, and resendAvailableAt turns null",
        arguments: StoreKind.allCases)
    func maxSends(store: StoreKind) async throws {
        let policy = Policy(resendCooldowns: [.seconds(1)], maxSends: 2)
        try await Harness.with(store: store, policy: policy) { harness in
            let id = try await harness.start()
            harness.clock.advance(seconds: 1)
            let last = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(last.status == 200)
            #expect(last.json["sendsLeft"] as? Int == 0)
            #expect(last.json["resendAvailableAt"] is NSNull)
            harness.clock.advance(seconds: 1)
            let response = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(response.status == 429)
            #expect(response.errorCode == "max_sends_reached")
            #expect(response.headers["retry-after"] != nil)
        }
    }

    @Test("a resend whose delivery fails is 502; the previous code stays valid and no send is used")
    func resendDeliveryFailed() async throws {
        let provider = try ProviderStub()
        try await Harness.with(
            senders: [.webhook(url: "http://127.0.0.1:\(provider.port)/hook")],
            environment: ["OTP_WEBHOOK_SECRET": "s"]
        ) { harness in
            let id = try await harness.start()
            let code = try #require(provider.lastCode())
            provider.failing = true
            harness.clock.advance(seconds: 30)
            let response = try await harness.call("POST", "/v1/verifications/\(id)/resend")
            #expect(response.status == 502)
            #expect(response.errorCode == "delivery_failed")
            let status = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(status.json["sendsLeft"] as? Int == 4)
            #expect(try await harness.check(id, code).status == 200)
        }
        await provider.stop()
    }

    @Test(
        "cancel answers 200 canceled; then 409 not_pending; 404 for an unknown id",
        arguments: StoreKind.allCases)
    func cancel(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            let canceled = try await harness.call("POST", "/v1/verifications/\(id)/cancel")
            #expect(canceled.status == 200)
            #expect(canceled.json["status"] as? String == "canceled")
            #expect(try await harness.call("POST", "/v1/verifications/\(id)/cancel").status == 409)
            #expect(try await harness.check(id, code).status == 409)
            #expect(
                try await harness.call("POST", "/v1/verifications/vf_AAAAAAAAAAAAAAAAAAAAAA/cancel").status
                    == 404)
        }
    }

    @Test("/healthz answers 200 ok without a key, with the release's version")
    func health() async throws {
        try await Harness.with { harness in
            let response = try await harness.call("GET", "/healthz", key: .some(nil))
            #expect(response.status == 200)
            #expect(response.text == #"{"status":"ok","version":"\#(BuildInfo.version)"}"#)
        }
    }

    @Test("every answer's Date header is the server's own clock, the one its JSON times come from (V13)")
    func dateFromTheServersClock() async throws {
        try await Harness.with { harness in
            let started = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#)
            let header = try #require(started.headers["date"])
            let serverDate = try #require(ServerAnswer.date(fromHTTPDate: header))
            #expect(Int(serverDate.timeIntervalSince1970) == Int(harness.clock.now.timeIntervalSince1970))
            #expect(abs(serverDate.timeIntervalSince(Date())) > 3600, "the test clock is not the machine's")
            harness.clock.advance(seconds: 90)
            let later = try await harness.call("GET", "/healthz", key: .some(nil))
            let laterDate = try #require(later.headers["date"].flatMap(ServerAnswer.date(fromHTTPDate:)))
            #expect(laterDate.timeIntervalSince(serverDate) == 90)
        }
    }
}
