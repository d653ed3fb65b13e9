import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// The pumping guard over HTTP: the 429, its log line and metric, and the conversion insights.
@Suite struct FraudGuardEndpointTests {
    static func policy(_ mode: FraudGuardPolicy.Mode = .on) -> Policy {
        var policy = Policy()
        let plenty = RateLimit(limit: 10_000, window: .seconds(3600))
        policy.startsPerAddress = plenty
        policy.startsPerDestination = plenty
        policy.checksPerAddress = plenty
        policy.fraudGuard = FraudGuardPolicy(mode: mode, minSends: 3)
        return policy
    }

    /// Three approved starts to +447400, then three unanswered ones to +447500: the prefix's block.
    static func pump(_ harness: Harness) async throws {
        for index in 0..<3 {
            let id = try await harness.start("+44740012345\(index)")
            #expect(try await harness.check(id, try harness.code(for: id)).status == 200)
        }
        for index in 0..<3 { _ = try await harness.start("+44750012345\(index)") }
    }

    @Test(
        "a start to a blocked prefix is 429 destination_blocked, reason pumping, with retryAfter, and sends nothing",
        arguments: StoreKind.allCases)
    func blocked(kind: StoreKind) async throws {
        try await Harness.with(store: kind, policy: Self.policy()) { harness in
            try await Self.pump(harness)
            let sentBefore = (try? OutboxSender.entries(path: harness.outbox).count) ?? 0
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+447500123459"}"#)
            #expect(response.status == 429)
            #expect(response.errorCode == "destination_blocked")
            #expect(response.errorField("reason") as? String == "pumping")
            #expect(response.errorField("retryAfter") as? Int == 43_200)
            #expect(response.headers["retry-after"] == "43200")
            #expect(((try? OutboxSender.entries(path: harness.outbox).count) ?? 0) == sentBefore)
            // The decisions: a log line each with their figures, never a whole number; a metric each.
            let lines = harness.log.all.filter { $0.contains(#""event":"fraud_decision""#) }
            #expect(lines.count == 2)
            let block = try #require(lines.first)
            for field in [
                #""action":"block""#, #""prefix":"+447500""#, #""region":"GB""#, #""sends":"3""#,
                #""approvals":"0""#, #""baseline":"1.0000""#, #""threshold":"0.2500""#, #""repeat":"1""#,
            ] {
                #expect(block.contains(field), "\(field) in \(block)")
            }
            #expect(lines.last?.contains(#""action":"refuse""#) == true)
            #expect(!harness.log.all.joined().contains("447500123459"))
            let metrics = try await harness.call("GET", "/metrics")
            #expect(metrics.text.contains(#"otp_fraud_decisions_total{action="block",region="GB"} 1"#))
            #expect(metrics.text.contains(#"otp_fraud_decisions_total{action="refuse",region="GB"} 1"#))
        }
    }

    @Test("a block is posted once as a fraud_blocked lifecycle event naming the prefix, never a number")
    func event() async throws {
        let receiver = try ProviderStub()
        try await EventWebhookTests.with(.memory, receiver: receiver, policy: Self.policy()) { harness in
            try await Self.pump(harness)
            // Six pending, three approved, one fraud_blocked.
            let requests = await receiver.waitForRequests(10)
            let events = requests.map { EventWebhookTests.object($0.body) }
            let blocked = events.filter { $0["type"] == "fraud_blocked" }
            #expect(blocked.count == 1)
            #expect(blocked.first?["to"] == "+447500")
            #expect(blocked.first?["verificationId"] == "")
            #expect(blocked.first?["id"] == "evt_fraud.prefix.+447500.1")
            #expect(
                try await EventWebhookTests.waitForMetric(
                    harness, #"otp_events_total{type="fraud_blocked",result="delivered"} 1"#))
        }
        await receiver.stop()
    }

    @Test("shadow mode sends to a blocked prefix and counts its decisions as shadow_")
    func shadow() async throws {
        try await Harness.with(policy: Self.policy(.shadow)) { harness in
            try await Self.pump(harness)
            _ = try await harness.start("+447500123459")
            let metrics = try await harness.call("GET", "/metrics")
            #expect(
                metrics.text.contains(#"otp_fraud_decisions_total{action="shadow_block",region="GB"} 1"#))
            #expect(
                metrics.text.contains(#"otp_fraud_decisions_total{action="shadow_refuse",region="GB"} 1"#))
        }
    }

    @Test(
        "refusals are logged once per block key per minute with the refusals folded in; the metric counts each"
    )
    func refusalLines() throws {
        let lines = Locked<[String]>([])
        let log = RequestLog(now: { Date() }, write: { line in lines.withLock { $0.append(line) } })
        let metrics = ServerMetrics()
        let report = FraudReport.reporter(metrics: metrics, log: log, events: nil)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func decision(_ action: FraudDecision.Action, _ number: String, at seconds: Double) -> FraudDecision {
            let subject = FraudSubject(e164: number, region: "GB")
            let until = start.addingTimeInterval(43_200)
            return FraudDecision(
                action: action, level: .prefix, mode: .shadow, subject: subject,
                block: FraudBlockState(
                    key: FraudKey.prefix(subject), until: until, repeats: 1, forgetAt: until, created: false),
                judgement: nil, at: start.addingTimeInterval(seconds))
        }
        report(decision(.block, "+447500123450", at: 0))
        // +447500: refusals at 0, 10, 30 and 59.9 s give one line; the one at 60 s stands for four.
        for seconds in [0, 10, 30, 59.9, 60, 61] { report(decision(.refuse, "+447500123451", at: seconds)) }
        // Another key has lines of its own.
        report(decision(.refuse, "+447600123451", at: 30))
        report(decision(.refuse, "+447500123451", at: 200))
        let written = lines.withLock { $0 }
        let refusals = written.filter { $0.contains(#""action":"shadow_refuse""#) }
        let counts = refusals.map { line -> String in
            let prefix = line.contains(#""prefix":"+447600""#) ? "+447600" : "+447500"
            let count = line.components(separatedBy: #""refusals":""#).dropFirst().first?.prefix {
                $0.isNumber
            }
            return "\(prefix) \(count ?? "none")"
        }
        #expect(counts == ["+447500 1", "+447500 4", "+447600 1", "+447500 2"])
        #expect(written.filter { $0.contains(#""action":"shadow_block""#) }.count == 1)
        let text = metrics.prometheusText()
        #expect(text.contains(#"otp_fraud_decisions_total{action="shadow_refuse",region="GB"} 8"#))
        #expect(text.contains(#"otp_fraud_decisions_total{action="shadow_block",region="GB"} 1"#))
    }

    @Test(
        "the conversion insights: per region and prefix for secret keys; 403 for publishable keys; 400 for a bad since"
    )
    func insights() async throws {
        try await Harness.with(policy: Self.policy(), publishableKeys: PublishableKeyTests.keys) { harness in
            try await Self.pump(harness)
            let since = WireCoding.format(harness.clock.now.addingTimeInterval(-600))
            let response = try await harness.call("GET", "/v1/insights/conversion?since=\(since)")
            #expect(response.status == 200)
            let regions = try #require(response.json["regions"] as? [[String: Any]])
            #expect(regions.count == 1)
            #expect(regions.first?["region"] as? String == "GB")
            #expect(regions.first?["sends"] as? Int == 6)
            #expect(regions.first?["approvals"] as? Int == 3)
            #expect(regions.first?["conversion"] as? Double == 0.5)
            let prefixes = try #require(response.json["prefixes"] as? [[String: Any]])
            #expect(Set(prefixes.compactMap { $0["prefix"] as? String }) == ["+447400", "+447500"])
            #expect(response.json["since"] as? String == since)
            let later = WireCoding.format(harness.clock.now.addingTimeInterval(3600))
            let empty = try await harness.call("GET", "/v1/insights/conversion?since=\(later)")
            #expect((empty.json["regions"] as? [Any])?.isEmpty == true)
            let publishable = try await harness.call(
                "GET", "/v1/insights/conversion", key: .some(PublishableKeyTests.ios))
            #expect(publishable.status == 403)
            #expect(publishable.errorCode == "forbidden")
            let bad = try await harness.call("GET", "/v1/insights/conversion?since=yesterday")
            #expect(bad.status == 400)
            #expect(bad.errorCode == "invalid_request")
            let whole = try await harness.call("GET", "/v1/insights/conversion")
            #expect(whole.status == 200)
        }
    }
}
