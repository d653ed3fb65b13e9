import Foundation
import OTPCore
import OTPDelivery
import OTPEngine
import OTPHTTP
import OTPServe
import OTPTestSupport
import Testing

/// Lifecycle events posted to the operator's endpoint, black-box through HTTP on every store.
@Suite struct EventWebhookTests {
    static let secret = "events-secret-\(UUID().uuidString)"

    /// Quick rounds for tests; retries are paced by the harness's manual clock.
    static let fast = EventDeliverySettings(
        retryBase: .seconds(1), retryCap: .seconds(4), giveUpAfter: .seconds(3600),
        idlePause: .milliseconds(10))

    static func object(_ body: [UInt8]) -> [String: String] {
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        return json.compactMapValues { $0 as? String }
    }

    /// Polls `/metrics` until it has a line starting with `prefix` (at most ten seconds).
    static func waitForMetric(_ harness: Harness, _ prefix: String) async throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = try await harness.call("GET", "/metrics").text
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Moves the server's clock on, a step at a time, until the receiver has `count` requests (at
    /// most ten seconds): each failed event waits for its own retry time on that clock.
    static func advance(
        _ harness: Harness, by seconds: Double, until receiver: ProviderStub, has count: Int
    )
        async throws
    {
        let deadline = Date().addingTimeInterval(10)
        while receiver.received < count, Date() < deadline {
            harness.clock.advance(seconds: seconds)
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    static func with(
        _ kind: StoreKind, receiver: ProviderStub, policy: Policy = Policy(),
        _ body: (Harness) async throws -> Void
    ) async throws {
        try await Harness.with(
            store: kind, policy: policy, environment: ["OTP_EVENTS_SECRET": secret], checkFloor: .zero,
            eventsURL: "http://127.0.0.1:\(receiver.port)/events", eventDelivery: fast, body)
    }

    @Test(
        "each change is posted once, signed, in order per verification, with the masked destination only",
        arguments: StoreKind.allCases)
    func lifecycle(kind: StoreKind) async throws {
        let receiver = try ProviderStub()
        try await Self.with(kind, receiver: receiver, policy: Policy(maxAttempts: 2)) { harness in
            let approved = try await harness.start("+12025550101")
            _ = try await harness.check(approved, try harness.code(for: approved))
            let canceled = try await harness.start("+12025550102")
            #expect(try await harness.call("POST", "/v1/verifications/\(canceled)/cancel").status == 200)
            let locked = try await harness.start("+12025550103")
            let code = try harness.code(for: locked)
            let wrong = code == "000000" ? "111111" : "000000"
            _ = try await harness.check(locked, wrong)
            _ = try await harness.check(locked, wrong)

            let requests = await receiver.waitForRequests(6)
            #expect(requests.count == 6)
            let events = requests.map { Self.object($0.body) }
            func kinds(_ id: String) -> [String] {
                events.filter { $0["verificationId"] == id }.compactMap { $0["type"] }
            }
            #expect(kinds(approved) == ["pending", "approved"])
            #expect(kinds(canceled) == ["pending", "canceled"])
            #expect(kinds(locked) == ["pending", "max_attempts_reached"])
            #expect(Set(events.compactMap { $0["id"] }).count == 6)
            for (request, event) in zip(requests, events) {
                #expect(
                    WebhookSender.verify(
                        header: request.signature, body: request.body, secret: Array(Self.secret.utf8),
                        purpose: .event, now: harness.clock.now))
                #expect(
                    !WebhookSender.verify(
                        header: request.signature, body: request.body, secret: Array(Self.secret.utf8),
                        purpose: .delivery, now: harness.clock.now),
                    "an event cannot be replayed as a delivery under the same secret")
                #expect(
                    !WebhookSender.verify(
                        header: request.signature, body: request.body, secret: Array("other".utf8),
                        purpose: .event, now: harness.clock.now))
                #expect(event["channel"] == "sms")
                #expect(
                    event["to"]?.hasSuffix("01") == true || event["to"]?.hasSuffix("02") == true
                        || event["to"]?.hasSuffix("03") == true)
                let text = String(decoding: request.body, as: UTF8.self)
                #expect(!text.contains("2025550"), "no full destination: \(text)")
                #expect(!text.contains("\"\(code)\""))
                #expect(event["at"]?.hasSuffix("Z") == true)
            }
        }
        await receiver.stop()
    }

    @Test(
        "a receiver answering 500 gets the event again at its retry time, with the same id",
        arguments: StoreKind.allCases)
    func retried(kind: StoreKind) async throws {
        let receiver = try ProviderStub()
        receiver.failing = true
        try await Self.with(kind, receiver: receiver) { harness in
            _ = try await harness.start("+12025550104")
            let failed = await receiver.waitForRequests(1)
            #expect(failed.count == 1)
            receiver.failing = false
            // The failure is recorded with its retry time on the server's clock; until the clock
            // moves past it, nothing more comes.
            #expect(
                try await Self.waitForMetric(harness, #"otp_events_total{type="pending",result="failed"} 1"#))
            try await Task.sleep(for: .milliseconds(100))
            #expect(receiver.received == 1)
            try await Self.advance(harness, by: 2, until: receiver, has: 2)
            let all = receiver.requests
            try #require(all.count >= 2)
            #expect(Self.object(all[0].body)["id"] == Self.object(all[1].body)["id"])
            // The deliverer counts a delivery once the endpoint's answer is in.
            #expect(
                try await Self.waitForMetric(
                    harness, #"otp_events_total{type="pending",result="delivered"} 1"#))
            let metrics = try await harness.call("GET", "/metrics").text
            #expect(metrics.contains(#"otp_events_total{type="pending",result="failed"} 1"#))
        }
        await receiver.stop()
    }

    @Test(
        "a code whose lifetime passes is posted expired, though no request touches it",
        arguments: StoreKind.allCases)
    func expired(kind: StoreKind) async throws {
        let receiver = try ProviderStub()
        try await Self.with(kind, receiver: receiver) { harness in
            let id = try await harness.start("+12025550105")
            _ = await receiver.waitForRequests(1)
            harness.clock.advance(seconds: 301)
            let requests = await receiver.waitForRequests(2)
            let events = requests.map { Self.object($0.body) }
            #expect(events.map { $0["type"] } == ["pending", "expired"])
            #expect(events.allSatisfy { $0["verificationId"] == id })
        }
        await receiver.stop()
    }

    @Test(
        "a receiver that is down at first gets every event once it listens, each id once",
        arguments: StoreKind.allCases)
    func down(kind: StoreKind) async throws {
        // Held (bound, never listening: connections are refused) until the receiver starts on it,
        // so no other test's server can take the port meanwhile.
        let held = try ClosedPort()
        let port = held.port
        try await Harness.with(
            store: kind, environment: ["OTP_EVENTS_SECRET": Self.secret], checkFloor: .zero,
            eventsURL: "http://127.0.0.1:\(port)/events", eventDelivery: Self.fast
        ) { harness in
            let ids = [
                try await harness.start("+12025550111"), try await harness.start("+12025550112"),
                try await harness.start("+12025550113"),
            ]
            // The deliverer finds nobody listening.
            #expect(
                try await Self.waitForMetric(harness, #"otp_events_total{type="pending",result="failed"}"#))
            held.release()
            let receiver = try await Self.listen(on: port)
            try await Self.advance(harness, by: 5, until: receiver, has: 3)
            let requests = receiver.requests
            let events = requests.map { Self.object($0.body) }
            #expect(Set(events.compactMap { $0["verificationId"] }) == Set(ids))
            #expect(Set(events.compactMap { $0["id"] }).count == events.count)
            #expect(
                try await Self.waitForMetric(
                    harness, #"otp_events_total{type="pending",result="delivered"} 3"#))
            await receiver.stop()
        }
    }

    /// A receiver on `port`, tried again for up to two seconds: in one parallel run out of twenty
    /// the port, released the moment before, could not be listened on; what held it was not found,
    /// and a holder that lasts longer than the retries still fails the test.
    static func listen(on port: Int) async throws -> ProviderStub {
        var tries = 0
        while true {
            do {
                return try ProviderStub(port: port)
            } catch {
                tries += 1
                guard tries < 100 else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test(
        "a receiver slower than the timeout gets the event again, with the same id: at least once",
        arguments: StoreKind.allCases)
    func slow(kind: StoreKind) async throws {
        let receiver = try ProviderStub()
        receiver.hold()
        var settings = Self.fast
        settings.timeout = .milliseconds(200)
        try await Harness.with(
            store: kind, environment: ["OTP_EVENTS_SECRET": Self.secret], checkFloor: .zero,
            eventsURL: "http://127.0.0.1:\(receiver.port)/events", eventDelivery: settings
        ) { harness in
            _ = try await harness.start("+12025550114")
            _ = await receiver.waitForRequests(1)
            // The held answer outlasts the timeout: a failure, retried at its time.
            #expect(
                try await Self.waitForMetric(harness, #"otp_events_total{type="pending",result="failed"} 1"#))
            receiver.release()
            harness.clock.advance(seconds: 5)
            try await Self.advance(harness, by: 5, until: receiver, has: 2)
            let ids = receiver.requests.map { Self.object($0.body)["id"] }
            try #require(ids.count >= 2)
            #expect(ids[0] != nil && ids[0] == ids[1])
        }
        await receiver.stop()
    }

    @Test("--events needs OTP_EVENTS_SECRET and a secure URL")
    func refusedSettings() async throws {
        await #expect(throws: ServerStartError.self) {
            try await Harness.with(eventsURL: "http://127.0.0.1:1/events") { _ in }
        }
        await #expect(throws: ServerStartError.self) {
            try await Harness.with(
                environment: ["OTP_EVENTS_SECRET": "s"], eventsURL: "http://example.org/events"
            ) { _ in }
        }
    }
}
