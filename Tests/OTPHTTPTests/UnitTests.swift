import Foundation
import OTPCore
import OTPServe
import OTPServer
import Testing

@testable import OTPHTTP

@Suite struct APIKeysTests {
    @Test("only Bearer with a configured key is accepted")
    func accepts() {
        let keys = APIKeys(["alpha-key", "beta-key", ""])
        #expect(keys.count == 2)
        #expect(keys.accepts(authorization: "Bearer alpha-key"))
        #expect(keys.accepts(authorization: "BEARER beta-key"))
        #expect(!keys.accepts(authorization: nil))
        #expect(!keys.accepts(authorization: "Bearer "))
        #expect(!keys.accepts(authorization: "Bearer alpha"))
        #expect(!keys.accepts(authorization: "Bearer alpha-key2"))
        #expect(!keys.accepts(authorization: "Basic alpha-key"))
        #expect(!keys.accepts(authorization: "alpha-key"))
        #expect(!APIKeys([]).accepts(authorization: "Bearer "))
    }
}

@Suite struct RouteTests {
    @Test(
        "paths map to routes and templates",
        arguments: [
            ("/v1/verifications", "/v1/verifications"), ("/v1/verifications/vf_1", "/v1/verifications/{id}"),
            ("/v1/verifications/vf_1/check", "/v1/verifications/{id}/check"),
            ("/v1/verifications/vf_1/resend", "/v1/verifications/{id}/resend"),
            ("/v1/verifications/vf_1/cancel", "/v1/verifications/{id}/cancel"), ("/healthz", "/healthz"),
            ("/metrics", "/metrics"),
        ])
    func matches(path: String, template: String) {
        #expect(Route(path: path)?.template == template)
    }

    @Test(
        "other paths match nothing",
        arguments: [
            "/", "/v1", "/v1/verifications/", "/v1/verifications//check", "/v1/verifications/a/b",
            "/v1/verifications/a/check/x",
            "/v2/verifications", "/healthz/",
        ])
    func unmatched(path: String) {
        #expect(Route(path: path) == nil)
    }

    @Test("every /v1 path needs a key, and nothing else does")
    func needsKey() {
        #expect(Route.needsKey("/v1"))
        #expect(Route.needsKey("/v1/anything"))
        #expect(!Route.needsKey("/v10"))
        #expect(!Route.needsKey("/healthz"))
    }
}

@Suite struct RequestLogTests {
    @Test("a log line is one JSON object with escaped strings")
    func line() throws {
        let request = CompletedRequest(
            method: "GET", route: "/a\"b\n", status: nil, duration: .microseconds(1500), note: nil,
            completed: false)
        let line = RequestLog.line(request, at: Date(timeIntervalSince1970: 0))
        #expect(
            line
                == #"{"time":"1970-01-01T00:00:00.000Z","method":"GET","route":"/a\"b\u000a","status":null,"durationMs":1.500,"completed":false}"#
                + "\n")
        #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
    }
}

@Suite struct ServerMetricsTests {
    @Test("unknown methods share one label and a missing status reads none")
    func labels() {
        let metrics = ServerMetrics()
        metrics.recordRequest(route: "/x", method: "BREW", status: nil, duration: .milliseconds(3))
        let text = metrics.prometheusText()
        #expect(text.contains(#"otp_http_requests_total{route="/x",method="OTHER",status="none"} 1"#))
        #expect(text.contains(#"otp_http_request_duration_seconds_bucket{route="/x",le="0.0025"} 0"#))
        #expect(text.contains(#"otp_http_request_duration_seconds_bucket{route="/x",le="0.005"} 1"#))
    }
}

@Suite struct ServerStartTests {
    @Test("nothing runs without an API key")
    func needsKey() async {
        await #expect(throws: ServerStartError.self) {
            try await serve(port: 0, apiKeys: [""], requestLog: .silent)
        }
    }

    @Test(
        "a sender without its settings refuses to start",
        arguments: [
            SenderSpec.webhook(url: "http://127.0.0.1:9/hook"), .twilio,
            .smtp(url: "mail.example.com"),
            .webhook(url: "ftp://x"),
        ])
    func senderSettings(sender: SenderSpec) async {
        await #expect(throws: ServerStartError.self) {
            try await serve(port: 0, apiKeys: ["k"], senders: [sender], requestLog: .silent)
        }
    }

    @Test("no sender at all refuses to start")
    func noSender() async {
        await #expect(throws: ServerStartError("at least one sender is needed")) {
            try await serve(port: 0, apiKeys: ["k"], senders: [], requestLog: .silent)
        }
    }

    @Test("a policy that cannot work refuses to start")
    func badPolicy() async {
        await #expect(throws: ServerStartError.self) {
            try await serve(
                port: 0, apiKeys: ["k"], policy: Policy(androidAppHash: "short"), requestLog: .silent)
        }
    }

    @Test("a shared Redis store needs a secret file")
    func redisNeedsSecret() async {
        await #expect(throws: ServerStartError.self) {
            try await serve(
                port: 0, apiKeys: ["k"], store: .redis(host: "127.0.0.1", port: 1, database: 0),
                requestLog: .silent)
        }
    }

    @Test("a port in use or a host that is not an address refuses to start")
    func bindFailures() async throws {
        let first = try await serve(port: 0, apiKeys: ["k"], requestLog: .silent)
        await #expect(throws: ServerStartError.self) {
            try await serve(port: first.port, apiKeys: ["k"], requestLog: .silent)
        }
        await first.stop()
        await #expect(throws: ServerStartError.self) {
            try await serve(host: "localhost", port: 0, apiKeys: ["k"], requestLog: .silent)
        }
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: HTTPServerConfiguration(port: 70000), handler: APIHandlerStub())
        }
    }

    @Test("a secret file, SQLite file or metrics address that cannot be used refuses to start")
    func unusablePaths() async throws {
        let missing = "/nonexistent-\(UUID().uuidString)/x"
        await #expect(throws: ServerStartError.self) {
            try await serve(port: 0, apiKeys: ["k"], secretFile: missing, requestLog: .silent)
        }
        await #expect(throws: ServerStartError.self) {
            try await serve(
                port: 0, apiKeys: ["k"], store: .sqlite(path: missing), secretFile: nil,
                requestLog: .silent)
        }
        let first = try await serve(port: 0, apiKeys: ["k"], requestLog: .silent)
        await #expect(throws: ServerStartError.self) {
            try await serve(
                port: 0, apiKeys: ["k"], metricsAddress: ("127.0.0.1", first.port), requestLog: .silent)
        }
        await first.stop()
    }

    @Test("HEAD answers like GET without a body")
    func head() async throws {
        let server = try await serve(port: 0, apiKeys: ["k"], requestLog: .silent)
        let response = try await RawHTTP.request(port: server.port, method: "HEAD", path: "/healthz")
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        await server.stop()
    }

    @Test("the channels offered are those the senders serve")
    func channelsFollowSenders() async throws {
        let server = try await serve(
            port: 0, apiKeys: ["k"], senders: [.smtp(url: "smtp://127.0.0.1:1")], requestLog: .silent)
        #expect(server.policy.channels == [.email])
        let response = try await RawHTTP.request(
            port: server.port, method: "POST", path: "/v1/verifications",
            headers: [("Authorization", "Bearer k")],
            body: #"{"to":"+12025550100"}"#)
        #expect(response.status == 400)
        #expect(response.errorCode == "channel_not_supported")
        await server.stop()
    }
}

struct APIHandlerStub: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPReply { .now(HTTPResponse(status: 200, route: "/")) }
}
