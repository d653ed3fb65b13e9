import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct ObservabilityTests {
    @Test(
        "one JSON log line per request, with the route template, the whole verification id and a request id, never a code or destination"
    )
    func logLines() async throws {
        try await Harness.with { harness in
            let id = try await harness.start("+12025550100")
            let code = try harness.code(for: id)
            _ = try await harness.check(id, code)
            _ = try await harness.call("GET", "/nope", key: .some(nil))
            let lines = await harness.log.first(3)
            #expect(harness.log.all.count == 3)
            let objects = try lines.map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            // A line is written when its request finishes, which for a held check answer can be
            // after the next request's: compare by route, not by order.
            let byRoute = Dictionary(
                objects.map { ($0["route"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            #expect(
                Set(byRoute.keys) == ["/v1/verifications", "/v1/verifications/{id}/check", "(unmatched)"])
            #expect(byRoute["/v1/verifications"]?["status"] as? Int == 201)
            #expect(byRoute["/v1/verifications/{id}/check"]?["status"] as? Int == 200)
            #expect(byRoute["(unmatched)"]?["status"] as? Int == 404)
            #expect(byRoute["/v1/verifications"]?["method"] as? String == "POST")
            #expect(byRoute["/v1/verifications/{id}/check"]?["method"] as? String == "POST")
            #expect(byRoute["(unmatched)"]?["method"] as? String == "GET")
            #expect(byRoute["/v1/verifications/{id}/check"]?["verification"] as? String == id)
            #expect(
                objects.allSatisfy { ($0["requestId"] as? String)?.isEmpty == false },
                "every line has its request id")
            #expect(Set(objects.compactMap { $0["requestId"] as? String }).count == 3, "one id per request")
            #expect(objects.allSatisfy { $0["durationMs"] is Double || $0["durationMs"] is Int })
            for line in lines {
                #expect(line.hasSuffix("}\n"))
                #expect(!line.contains(code))
                #expect(!line.contains("5550100"))
            }
        }
    }

    @Test("/metrics counts requests, check outcomes, sends and rate-limit rejections, in Prometheus text")
    func metrics() async throws {
        let policy = Policy(startsPerDestination: RateLimit(limit: 1, window: .seconds(3600)))
        try await Harness.with(policy: policy) { harness in
            let id = try await harness.start("+12025550100")
            let code = try harness.code(for: id)
            _ = try await harness.check(id, code == "000000" ? "111111" : "000000")
            _ = try await harness.check(id, code)
            _ = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550100"}"#)
            // The observer counts a request after its answer is sent; wait until all four are in.
            _ = await harness.log.first(4)
            let response = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = response.text
            #expect(
                text.contains(
                    #"otp_http_requests_total{route="/v1/verifications",method="POST",status="201"} 1"#))
            #expect(
                text.contains(
                    #"otp_http_requests_total{route="/v1/verifications/{id}/check",method="POST",status="422"} 1"#
                ))
            #expect(text.contains(#"otp_check_outcomes_total{outcome="approved"} 1"#))
            #expect(text.contains(#"otp_check_outcomes_total{outcome="incorrect_code"} 1"#))
            #expect(text.contains(#"otp_sends_total{channel="sms",result="sent"} 1"#))
            #expect(
                text.contains(
                    #"otp_rate_limit_rejections_total{route="/v1/verifications",code="rate_limited"} 1"#))
            #expect(
                text.contains(
                    #"otp_http_request_duration_seconds_bucket{route="/v1/verifications",le="+Inf"} 2"#))
            #expect(text.contains("# TYPE otp_http_request_duration_seconds histogram"))
            #expect(!text.contains(code))
            #expect(!text.contains("5550100"))
            #expect(!text.contains(id))
        }
    }

    @Test(
        "a send cap reached is counted by cap in /metrics and logged as an event line without the destination"
    )
    func sendCapReached() async throws {
        let policy = Policy(globalSendsPerHour: 5, sendsPerCallingCodePerHour: 1)
        try await Harness.with(policy: policy) { harness in
            _ = try await harness.start("+12015550100")
            let refused = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12015550111"}"#)
            #expect(refused.status == 429)
            let text = try await harness.call("GET", "/metrics").text
            #expect(text.contains(#"otp_send_cap_reached_total{cap="sends_per_calling_code"} 1"#))
            let events = harness.log.all.filter { $0.contains("\"event\":\"send_cap_reached\"") }
            #expect(events.count == 1)
            #expect(events.first?.contains(#""cap":"sends_per_calling_code""#) == true)
            #expect(events.first?.contains("5550111") == false)
        }
    }

    @Test("failed sends are counted by channel")
    func failedSends() async throws {
        let provider = try ProviderStub()
        provider.failing = true
        try await Harness.with(
            senders: [.webhook(url: "http://127.0.0.1:\(provider.port)/hook")],
            environment: ["OTP_WEBHOOK_SECRET": "s"]
        ) { harness in
            _ = try await harness.call("POST", "/v1/verifications", json: #"{"to":"ada@example.org"}"#)
            let text = try await harness.call("GET", "/metrics").text
            #expect(text.contains(#"otp_sends_total{channel="email",result="failed"} 1"#))
        }
        await provider.stop()
    }

    @Test("with a metrics address, /metrics moves to its own listener")
    func metricsAddress() async throws {
        try await Harness.with(metricsAddress: ("127.0.0.1", 0)) { harness in
            #expect(try await harness.call("GET", "/metrics", key: .some(nil)).status == 404)
            let port = try #require(harness.server.metricsPort)
            let response = try await RawHTTP.request(port: port, method: "GET", path: "/metrics")
            #expect(response.status == 200)
            #expect(response.text.contains("otp_http_requests_total"))
            #expect(try await RawHTTP.request(port: port, method: "GET", path: "/healthz").status == 200)
            // That listener serves those two alone: the API, the probes and the page are the main port's.
            let auth = [("Authorization", "Bearer \(harness.key)")]
            for path in ["/v1/verifications/vf_x", "/livez", "/readyz", "/v1/insights/conversion"] {
                let other = try await RawHTTP.request(port: port, method: "GET", path: path, headers: auth)
                #expect(other.status == 404, "\(path)")
                #expect(other.errorCode == "not_found", "\(path)")
            }
            let start = try await RawHTTP.request(
                port: port, method: "POST", path: "/v1/verifications",
                headers: auth + [("Content-Type", "application/json")], body: #"{"to":"+12015550100"}"#)
            #expect(start.status == 404)
        }
    }

    @Test("with events, the metrics listener's /metrics has the event backlog the alert reads")
    func metricsAddressWithEvents() async throws {
        try await Harness.with(
            metricsAddress: ("127.0.0.1", 0), environment: ["OTP_EVENTS_SECRET": "events-secret"],
            eventsURL: "http://127.0.0.1:9/events"
        ) {
            harness in
            #expect(
                try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550100"}"#).status
                    == 201)
            let port = try #require(harness.server.metricsPort)
            let response = try await RawHTTP.request(port: port, method: "GET", path: "/metrics")
            #expect(response.status == 200)
            #expect(response.text.contains("otp_event_backlog "), "\(response.text.prefix(400))")
        }
    }
}

@Suite struct GracefulStopTests {
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    @Test("stop refuses new connections at once, lets the request in flight finish, then returns")
    func finishesInFlight() async throws {
        let provider = try ProviderStub()
        provider.hold()
        let harness = try await Harness(
            senders: [.webhook(url: "http://127.0.0.1:\(provider.port)/hook")],
            environment: ["OTP_WEBHOOK_SECRET": "s"])
        let port = harness.port
        async let inFlight = harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550100"}"#)
        while provider.received == 0 { await Task.yield() }
        let done = Flag()
        let stopping = Task {
            await harness.stop()
            done.set()
        }
        // Wait until the listener is closed: stop has begun while the request is held.
        while (try? await RawHTTP.request(port: port, method: "GET", path: "/healthz")) != nil {
            await Task.yield()
        }
        #expect(!done.isSet)
        #expect(harness.server.server.requestsInFlight == 1)
        provider.release()
        let response = try await inFlight
        await stopping.value
        #expect(response.status == 201)
        #expect(done.isSet)
        await provider.stop()
    }
}
