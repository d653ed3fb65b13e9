import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct TestDestinationTests {
    static func policy(unlimited: Bool = false) -> Policy {
        var policy = Policy()
        policy.testDestinations = ["+15555550100": "482019", "review@example.org": "135790"]
        policy.testDestinationsUnlimited = unlimited
        return policy
    }

    @Test(
        "a test destination sends nothing and verifies with its fixed code; attempts count",
        arguments: StoreKind.allCases)
    func fixedCode(store: StoreKind) async throws {
        try await Harness.with(store: store, policy: Self.policy(), checkFloor: .zero) { harness in
            let id = try await harness.start("+1 555 555 0100")
            #expect(harness.sends(for: id) == 0, "nothing sent")
            let wrong = try await harness.check(id, "111111")
            #expect(wrong.status == 422)
            #expect(wrong.errorField("attemptsLeft") as? Int == 2)
            let right = try await harness.check(id, "482019")
            #expect(right.status == 200)
            #expect(right.json["status"] as? String == "approved")
            let email = try await harness.start("Review@Example.org")
            #expect(try await harness.check(email, "135790").status == 200)
            let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(metrics.text.contains(#"otp_sends_total{channel="sms",result="test"} 1"#))
            #expect(metrics.text.contains(#"otp_sends_total{channel="email",result="test"} 1"#))
            let other = try await harness.start("+15550100")
            #expect(harness.sends(for: other) == 1, "other destinations are sent as usual")
        }
    }

    @Test("a resend to a test destination keeps the fixed code and follows the cooldown")
    func resend() async throws {
        try await Harness.with(policy: Self.policy(), checkFloor: .zero) { harness in
            let id = try await harness.start("+15555550100")
            let early = try await harness.call("POST", "/v1/verifications/\(id)/resend", json: "{}")
            #expect(early.status == 429)
            harness.clock.advance(seconds: 31)
            let resent = try await harness.call("POST", "/v1/verifications/\(id)/resend", json: "{}")
            #expect(resent.status == 200)
            #expect(harness.sends(for: id) == 0)
            #expect(try await harness.check(id, "482019").status == 200)
        }
    }

    @Test("rate limits apply to test destinations, unless they are unlimited", arguments: [false, true])
    func limits(unlimited: Bool) async throws {
        try await Harness.with(policy: Self.policy(unlimited: unlimited)) { harness in
            var statuses: [Int] = []
            for _ in 0..<6 {
                statuses.append(
                    try await harness.call("POST", "/v1/verifications", json: #"{"to":"+15555550100"}"#)
                        .status)
            }
            #expect(statuses.last == (unlimited ? 201 : 429), "\(statuses)")
        }
    }

    @Test("a code that does not fit the format refuses to start; a test destination is warned about")
    func startUp() async throws {
        let bad = try ServeProcess([
            "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--store", "memory",
            "--port", "0",
            "--test-destination", "+15555550100=12345",
        ])
        let (status, _, stderr) = await bad.finish()
        #expect(status == 1)
        #expect(stderr.contains("+15555550100"))
        let malformed = try ServeProcess([
            "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--test-destination",
            "not-a-number=123456",
        ])
        let (usage, _, usageError) = await malformed.finish()
        #expect(usage == 2)
        #expect(usageError.contains("--test-destination"))
        let good = try ServeProcess([
            "serve", "--dev", "--store", "memory", "--port", "0", "--test-destination",
            "+1 555 555 0100=482019",
        ])
        let line = await good.waitForFirstLine()
        #expect(ServeLog.listeningURL(line) != nil)
        let (_, _, goodErrors) = await good.stop()
        // Masked, as every destination in the log is.
        #expect(goodErrors.contains("test destination (+1 ••• ••• 0100)"))
        #expect(!goodErrors.contains("5550100"))
    }
}
