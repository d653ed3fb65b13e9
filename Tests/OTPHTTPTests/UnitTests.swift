import Foundation
import OTPCore
import OTPEngine
import OTPServe
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

    @Test("the scheme is read in any case and the key after any spaces; nothing else stands for them")
    func schemeAndSpaces() {
        let keys = APIKeys(["alpha-key"])
        #expect(keys.accepts(authorization: "bEaReR alpha-key"))
        #expect(keys.accepts(authorization: "Bearer    alpha-key"))
        // A byte that differs from a letter or the space only in the case bit is not that letter.
        #expect(!keys.accepts(authorization: "Bearer\u{0}alpha-key"))
        #expect(!keys.accepts(authorization: "Bearer\talpha-key"))
        #expect(!keys.accepts(authorization: "Bearerxalpha-key"))
        #expect(!keys.accepts(authorization: "Bea\u{12}er alpha-key"))
        #expect(!keys.accepts(authorization: "Bearer"))
        #expect(!keys.accepts(authorization: "Bearer alpha-key "))
        #expect(!keys.accepts(authorization: "Bëarer alpha-key"))
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
            "/v1/verifications/a/check/x", "/v1/verifications/a/", "/v1/verificationsX/a",
            "/v2/verifications", "/healthz/",
        ])
    func unmatched(path: String) {
        #expect(Route(path: path) == nil)
    }

    @Test("the id is the whole segment, whatever its characters")
    func ids() {
        #expect(Route(path: "/v1/verifications/vf_1/check") == .check(id: "vf_1"))
        #expect(Route(path: "/v1/verifications/é%20x") == .status(id: "é%20x"))
        #expect(Route(path: "/v1/verifications/a-b/cancel") == .cancel(id: "a-b"))
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
                == #"{"time":"1970-01-01T00:00:00.000Z","level":"info","message":"GET /a\"b\u000a (no answer)","method":"GET","route":"/a\"b\u000a","status":null,"durationMs":1.500,"completed":false}"#
                + "\n")
        #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any])
        // Durations are whole milliseconds and three digits; none is negative.
        let long = CompletedRequest(
            method: "POST", route: "/v1", status: 201, duration: .microseconds(12_345_678), note: "vf_x",
            completed: true)
        #expect(
            RequestLog.line(long, at: Date(timeIntervalSince1970: 0)).contains(#""durationMs":12345.678,"#))
        let backwards = CompletedRequest(
            method: "GET", route: "/", status: 200, duration: .microseconds(-1_500), note: nil,
            completed: true)
        #expect(
            RequestLog.line(backwards, at: Date(timeIntervalSince1970: 0)).contains(#""durationMs":0.000}"#))
    }

    @Test("control characters below and above 0x10, quotes and backslashes are escaped; the rest is kept")
    func escapes() {
        #expect(RequestLog.quoted("a\u{01}b\u{1f}c\"d\\e é") == #""a\u0001b\u001fc\"d\\e é""#)
        #expect(RequestLog.quoted("/v1/verifications") == #""/v1/verifications""#)
    }

    /// A pipe whose read end does not block, for reading what a buffer has written so far.
    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(Foundation.pipe(&ends) == 0)
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        return (ends[0], ends[1])
    }

    private static func available(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(
        "the buffer holds lines back until 8 KiB have gathered, writes whole lines, and flush writes the rest"
    )
    func buffered() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        // A buffer without its timer thread: this test is about the size bound and flush.
        let buffer = LineBuffer(descriptor: writeEnd, flushesEvery: nil)
        let line = String(repeating: "x", count: 99) + "\n"
        for _ in 0..<81 { buffer.append(line) }
        #expect(Self.available(readEnd).isEmpty)
        buffer.append(line)
        let first = Self.available(readEnd)
        #expect(first.utf8.count == 8200)
        #expect(first.hasSuffix("\n"))
        buffer.append("last\n")
        #expect(Self.available(readEnd).isEmpty)
        buffer.flush()
        #expect(Self.available(readEnd) == "last\n")
        buffer.flush()
        #expect(Self.available(readEnd).isEmpty)
    }

    @Test("a log with its own buffer writes each request's line into it, byte for byte the line")
    func bufferedRecord() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let buffer = LineBuffer(descriptor: writeEnd, flushesEvery: nil)
        let time = Date(timeIntervalSince1970: 1_795_000_000.25)
        let others = Answers()
        let log = RequestLog(
            now: { time }, write: { others.add($0) }, flush: { buffer.flush() }, buffer: buffer)
        let requests = [
            CompletedRequest(
                method: "POST", route: "/v1/verifications/{id}/check", status: 422,
                duration: .microseconds(2_034), note: "vf_abc", completed: true),
            CompletedRequest(
                method: "GET", route: "/x\u{07}\"", status: nil, duration: .seconds(12), note: nil,
                completed: false),
        ]
        for request in requests { log.record(request) }
        #expect(Self.available(readEnd).isEmpty, "held until a flush")
        log.flush()
        #expect(Self.available(readEnd) == requests.map { RequestLog.line($0, at: time) }.joined())
        #expect(others.all.isEmpty, "request lines never go to write")
        log.event("send_cap_reached", "a send cap was reached", ["cap": "global_sends"])
        #expect(others.all.count == 1)
    }

    /// Lines a log handed to its `write`.
    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test("a closed descriptor loses the lines but never stops the caller")
    func closedDescriptor() throws {
        // A number no descriptor can have: a pipe's number closed here could be given to another
        // test running beside this one, which would then read these lines.
        let closed = Int32.max
        #expect(fcntl(closed, F_GETFD) == -1)
        let buffer = LineBuffer(descriptor: closed, flushesEvery: nil)
        for _ in 0..<200 { buffer.append(String(repeating: "y", count: 99) + "\n") }
        buffer.flush()
        // The caller goes on: appending and flushing after the loss return as before.
        buffer.append("after\n")
        buffer.flush()
    }
}

@Suite struct ServerMetricsTests {
    @Test("latency buckets are cumulative: each counts every request at or under its bound")
    func cumulativeBuckets() {
        let metrics = ServerMetrics()
        for milliseconds in [3, 3, 200, 20_000] {
            metrics.recordRequest(
                route: "/x", method: "GET", status: 200, duration: .milliseconds(milliseconds))
        }
        let text = metrics.prometheusText()
        let prefix = #"otp_http_request_duration_seconds_bucket{route="/x",le=""#
        for (bound, count) in [
            ("0.0025", 0), ("0.005", 2), ("0.1", 2), ("0.25", 3), ("10.0", 3), ("+Inf", 4),
        ] {
            #expect(text.contains(prefix + bound + "\"} \(count)\n"), "le=\(bound)")
        }
        #expect(text.contains(#"otp_http_request_duration_seconds_count{route="/x"} 4"#))
    }

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
        var policy = Policy.default
        policy.domain = "example.org"
        let server = try await serve(
            port: 0, apiKeys: ["k"], senders: [.smtp(url: "smtp://127.0.0.1:1")], policy: policy,
            requestLog: .silent)
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
