import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct StartEndpointTests {
    @Test(
        "a start answers 201 with the masked verification and sends one code", arguments: StoreKind.allCases)
    func created(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+1 (202) 555-0100"}"#)
            #expect(response.status == 201)
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.headers["cache-control"] == "no-store")
            let json = response.json
            let id = try #require(json["id"] as? String)
            #expect(id.hasPrefix("vf_"))
            #expect(json["status"] as? String == "pending")
            #expect(json["channel"] as? String == "sms")
            #expect(json["to"] as? String == "+1 •••-•••-0100")
            #expect(json["codeLength"] as? Int == 6)
            #expect(json["attemptsLeft"] as? Int == 3)
            #expect(json["sendsLeft"] as? Int == 4)
            #expect(json["createdAt"] as? String == "2027-01-15T08:00:00.000Z")
            #expect(json["expiresAt"] as? String == "2027-01-15T08:05:00.000Z")
            #expect(json["resendAvailableAt"] as? String == "2027-01-15T08:00:30.000Z")
            #expect(!response.text.contains(try harness.code(for: id)))
            #expect(harness.sends(for: id) == 1)
        }
    }

    @Test("an email destination infers the email channel", arguments: StoreKind.allCases)
    func email(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"ada@example.org"}"#)
            #expect(response.status == 201)
            #expect(response.json["channel"] as? String == "email")
            #expect(response.json["to"] as? String == "a•••@example.org")
        }
    }

    @Test(
        "the same Idempotency-Key and body replays with 200 and sends nothing", arguments: StoreKind.allCases)
    func idempotentReplay(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let body = #"{"to":"+12015550100","channel":"sms"}"#
            // A key of its own: a shared Redis may still hold one from an earlier run.
            let key = "order-\(UUID().uuidString)"
            let first = try await harness.call(
                "POST", "/v1/verifications", json: body, headers: [("Idempotency-Key", key)])
            let same = try await harness.call(
                "POST", "/v1/verifications", json: #"{"channel":"sms", "to":"+12015550100"}"#,
                headers: [("Idempotency-Key", key)])
            #expect(first.status == 201)
            #expect(same.status == 200)
            #expect(same.json["id"] as? String == first.json["id"] as? String)
            #expect(harness.sends(for: try #require(first.json["id"] as? String)) == 1)
            let other = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550111"}"#,
                headers: [("Idempotency-Key", key)])
            #expect(other.status == 422)
            #expect(other.errorCode == "idempotency_key_reused")
        }
    }

    @Test(
        "an Idempotency-Key belongs to the API key that used it: another API key gets its own verification",
        arguments: StoreKind.allCases)
    func idempotencyPerAPIKey(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let key = "order-\(UUID().uuidString)"
            let body = #"{"to":"+12015550100"}"#
            let mine = try await harness.call(
                "POST", "/v1/verifications", json: body, headers: [("Idempotency-Key", key)])
            let theirs = try await harness.call(
                "POST", "/v1/verifications", json: body, key: "other-key", headers: [("Idempotency-Key", key)]
            )
            #expect(mine.status == 201)
            #expect(theirs.status == 201)
            #expect(theirs.json["id"] as? String != mine.json["id"] as? String)
            let again = try await harness.call(
                "POST", "/v1/verifications", json: body, headers: [("Idempotency-Key", key)])
            #expect(again.status == 200)
            #expect(again.json["id"] as? String == mine.json["id"] as? String)
        }
    }

    @Test(
        "an Idempotency-Key that is empty, too long or not printable ASCII is 400 invalid_request",
        arguments: ["", String(repeating: "k", count: 256), "caf\u{E9}"])
    func badIdempotencyKey(key: String) async throws {
        try await Harness.with { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#,
                headers: [("Idempotency-Key", key)]
            )
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_request")
        }
    }

    @Test(
        "malformed bodies are 400 invalid_request",
        arguments: [
            "", "not json", "[]", #"{"to":5}"#, #"{"channel":"sms"}"#, #"{"to":""}"#,
            #"{"to":"+12015550100","channel":"fax"}"#,
            "{\"to\":\"\(String(repeating: "1", count: 321))\"}",
        ])
    func malformed(body: String) async throws {
        try await Harness.with { harness in
            let response = try await harness.call("POST", "/v1/verifications", json: body)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_request")
            #expect(response.errorField("message") is String)
        }
    }

    @Test(
        "a destination that is neither E.164 nor an email is 400 invalid_destination",
        arguments: StoreKind.allCases)
    func invalidDestination(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"call me maybe"}"#)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_destination")
        }
    }

    @Test("a channel the server does not offer is 400 channel_not_supported", arguments: StoreKind.allCases)
    func channelNotSupported(store: StoreKind) async throws {
        try await Harness.with(store: store, policy: Policy(allowedCallingCodes: ["1"])) { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+447400900123"}"#)
            #expect(response.status == 400)
            #expect(response.errorCode == "channel_not_supported")
            let mismatch = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"ada@example.org","channel":"sms"}"#)
            #expect(mismatch.status == 400)
        }
    }

    @Test(
        "too many starts for one destination is 429 rate_limited with Retry-After",
        arguments: StoreKind.allCases)
    func rateLimited(store: StoreKind) async throws {
        let policy = Policy(startsPerDestination: RateLimit(limit: 1, window: .seconds(3600)))
        try await Harness.with(store: store, policy: policy) { harness in
            _ = try await harness.start()
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#)
            #expect(response.status == 429)
            #expect(response.errorCode == "rate_limited")
            let retry = try #require(response.errorField("retryAfter") as? Int)
            #expect(retry > 0)
            #expect(response.headers["retry-after"] == String(retry))
        }
    }

    @Test("a provider that fails is 502 delivery_failed, and the Idempotency-Key is not kept")
    func deliveryFailed() async throws {
        let provider = try ProviderStub()
        provider.failing = true
        try await Harness.with(
            senders: [.webhook(url: "http://127.0.0.1:\(provider.port)/hook")],
            environment: ["OTP_WEBHOOK_SECRET": "s"]
        ) { harness in
            let key = [("Idempotency-Key", "signup-7")]
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#, headers: key)
            #expect(response.status == 502)
            #expect(response.errorCode == "delivery_failed")
            #expect(provider.received == 1)
            provider.failing = false
            let retry = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550100"}"#, headers: key)
            #expect(retry.status == 201)
            #expect(provider.received == 2)
        }
        await provider.stop()
    }

    @Test("behind N trusted proxies the Nth X-Forwarded-For entry from the right is the client address")
    func trustedProxy() async throws {
        let policy = Policy(startsPerAddress: RateLimit(limit: 1, window: .seconds(300)))
        let first = [("X-Forwarded-For", "10.9.9.9, 203.0.113.1, 10.0.0.1")]
        let second = [("X-Forwarded-For", "10.9.9.9, 203.0.113.2, 10.0.0.1")]
        try await Harness.with(policy: policy, trustedProxies: 2) { harness in
            _ = try await harness.start("+12015550100", headers: first)
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550111"}"#, headers: second)
            #expect(response.status == 201)
        }
        try await Harness.with(policy: policy) { harness in
            _ = try await harness.start("+12015550100", headers: first)
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550111"}"#, headers: second)
            #expect(response.status == 429)
        }
    }

    @Test(
        "X-Forwarded-For on several lines is one list: a proxy's own line after the client's is the one read"
    )
    func forwardedForOnSeveralLines() async throws {
        let policy = Policy(startsPerAddress: RateLimit(limit: 2, window: .seconds(3600)))
        try await Harness.with(policy: policy, trustedProxies: 1) { harness in
            var statuses: [Int] = []
            // The client forges a line; the proxy (as HAProxy's `option forwardfor` does) adds its own.
            for (index, forged) in ["198.51.100.1", "198.51.100.2", "198.51.100.3"].enumerated() {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: "{\"to\":\"+12015550\(index)20\"}",
                    headers: [("X-Forwarded-For", forged), ("X-Forwarded-For", "203.0.113.8")])
                statuses.append(response.status)
            }
            #expect(statuses == [201, 201, 429])
            // The lines join in the order received: the last line's entry is the rightmost.
            let joined = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+12015550130"}"#,
                headers: [("X-Forwarded-For", "203.0.113.8"), ("X-Forwarded-For", "198.51.100.77")])
            #expect(joined.status == 201, "198.51.100.77 is a new address")
        }
    }

    @Test("left-hand X-Forwarded-For entries are the client's own and never dodge the per-address limit")
    func forgedForwardedFor() async throws {
        let policy = Policy(startsPerAddress: RateLimit(limit: 2, window: .seconds(3600)))
        try await Harness.with(policy: policy, trustedProxies: 1) { harness in
            var statuses: [Int] = []
            for (index, forged) in ["198.51.100.1", "198.51.100.2", "198.51.100.3"].enumerated() {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: "{\"to\":\"+12015550\(index)10\"}",
                    headers: [("X-Forwarded-For", "\(forged), 203.0.113.7")])
                statuses.append(response.status)
            }
            #expect(statuses == [201, 201, 429])
            // An empty header, or an entry that is no address, counts as the socket's peer: a fresh
            // address here, which gets its own two starts and no more.
            var fallbacks: [Int] = []
            for (index, header) in ["", "not-an-address", "203.0.113.7, junk"].enumerated() {
                let response = try await harness.call(
                    "POST", "/v1/verifications", json: "{\"to\":\"+12015550\(index)70\"}",
                    headers: [("X-Forwarded-For", header)])
                fallbacks.append(response.status)
            }
            #expect(fallbacks == [201, 201, 429])
        }
    }
}
