import OTPCore
import Testing

@testable import OTPHTTP

/// Each middleware on its own and the chain's order, driven without a socket or an engine.
@Suite struct MiddlewareTests {
    static let key = "middleware-test-key-0123456789"

    static func context(
        _ method: String, _ path: String, headers: [String: String] = [:], peer: String = "192.0.2.7",
        tooLarge: Bool = false
    ) -> RequestContext {
        RequestContext(
            request: HTTPRequest(
                method: method, path: path, headers: headers, peerAddress: peer, bodyTooLarge: tooLarge),
            arrival: .now, route: RouteTable.match(path)?.0)
    }

    /// The response of a reply made at once, or `nil`.
    static func immediate(_ reply: HTTPReply) -> HTTPResponse? {
        if case .now(let response) = reply { response } else { nil }
    }

    /// A handler that answers 200 and counts its calls.
    final class Terminal: Sendable {
        private let calls = Locked(0)
        var count: Int { calls.withLock { $0 } }

        func answer(_ context: inout RequestContext) -> HTTPReply {
            calls.withLock { $0 += 1 }
            return .now(HTTPResponse(status: 200, route: context.template))
        }
    }

    @Test("a /v1 request without a key is 401 and goes no further; with one, the caller is known")
    func apiKey() {
        let check = APIKeyCheck(keys: KeyRing(APIKeys([Self.key])))
        let terminal = Terminal()
        var bare = Self.context("POST", "/v1/verifications")
        #expect(Self.immediate(check.respond(to: &bare, next: terminal.answer))?.status == 401)
        #expect(terminal.count == 0)
        var keyed = Self.context(
            "POST", "/v1/verifications", headers: ["authorization": "Bearer \(Self.key)"])
        #expect(Self.immediate(check.respond(to: &keyed, next: terminal.answer))?.status == 200)
        #expect(keyed.caller != nil)
        var health = Self.context("GET", "/healthz")
        #expect(
            Self.immediate(check.respond(to: &health, next: terminal.answer))?.status == 200, "no key needed")
        #expect(terminal.count == 2)
    }

    @Test("no route is 404, a hidden route is 404, a wrong method is 405 with Allow")
    func routes() throws {
        let terminal = Terminal()
        var unknown = Self.context("GET", "/v1/nothing-here")
        #expect(Self.immediate(RouteCheck().respond(to: &unknown, next: terminal.answer))?.status == 404)
        var metrics = Self.context("GET", "/metrics")
        #expect(
            Self.immediate(RouteCheck(hidden: [.metrics]).respond(to: &metrics, next: terminal.answer))?
                .status
                == 404)
        var wrong = Self.context("DELETE", "/v1/verifications")
        let refused = try #require(Self.immediate(RouteCheck().respond(to: &wrong, next: terminal.answer)))
        #expect(refused.status == 405)
        #expect(refused.headers.contains { $0.name == "Allow" && $0.value == "POST, GET, HEAD" })
        #expect(terminal.count == 0)
        var right = Self.context("POST", "/v1/verifications")
        #expect(Self.immediate(RouteCheck().respond(to: &right, next: terminal.answer))?.status == 200)
    }

    @Test("a body over the limit is 413 before the route reads it")
    func bodyLimit() {
        let terminal = Terminal()
        var large = Self.context("POST", "/v1/verifications", tooLarge: true)
        #expect(Self.immediate(BodyLimit().respond(to: &large, next: terminal.answer))?.status == 413)
        var small = Self.context("POST", "/v1/verifications")
        #expect(Self.immediate(BodyLimit().respond(to: &small, next: terminal.answer))?.status == 200)
        #expect(terminal.count == 1)
    }

    @Test(
        "the client address is the peer, or behind N proxies the Nth X-Forwarded-For entry from the right",
        arguments: [
            (0, "203.0.113.1, 198.51.100.2", "192.0.2.7"),
            (1, "203.0.113.1, 198.51.100.2", "198.51.100.2"),
            (2, "203.0.113.1, 198.51.100.2", "203.0.113.1"),
            (3, "203.0.113.1, 198.51.100.2", "192.0.2.7"),
            (1, "not-an-address", "192.0.2.7"),
        ])
    func address(proxies: Int, forwarded: String, expected: String) {
        var context = Self.context("GET", "/healthz", headers: ["x-forwarded-for": forwarded])
        _ = ClientAddressReader(trustedProxies: proxies).respond(to: &context) { _ in
            .now(HTTPResponse(status: 200, route: "test"))
        }
        #expect(context.address == expected)
    }

    @Test("the check floor holds the answers of routes that judge a code, and only theirs")
    func checkFloor() {
        let floor = CheckFloor(floor: .milliseconds(50))
        let terminal = Terminal()
        var check = Self.context("POST", "/v1/verifications/vf_x/check")
        guard case .at(let due, let held) = floor.respond(to: &check, next: terminal.answer) else {
            Issue.record("a check's answer was not held")
            return
        }
        #expect(held.status == 200)
        #expect(due == check.arrival.advanced(by: .milliseconds(50)))
        var status = Self.context("GET", "/v1/verifications/vf_x")
        #expect(Self.immediate(floor.respond(to: &status, next: terminal.answer)) != nil, "not held")
        var off = Self.context("POST", "/v1/verifications/vf_x/check")
        #expect(Self.immediate(CheckFloor(floor: .zero).respond(to: &off, next: terminal.answer)) != nil)
    }

    @Test("the page's security headers go on its own routes, replacing Cache-Control, not on its assets")
    func pageHeaders() throws {
        let headers = PageHeaders(headers: [
            ("Content-Security-Policy", "default-src 'none'"), ("Cache-Control", "no-store"),
        ])
        let cacheable: (inout RequestContext) -> HTTPReply = { context in
            .now(
                HTTPResponse(
                    status: 200, headers: [("Cache-Control", "public, max-age=300")], route: context.template)
            )
        }
        var page = Self.context("GET", "/v/sometoken")
        let answered = try #require(Self.immediate(headers.respond(to: &page, next: cacheable)))
        #expect(answered.headers.filter { $0.name == "Cache-Control" }.map(\.value) == ["no-store"])
        #expect(answered.headers.contains { $0.name == "Content-Security-Policy" })
        var asset = Self.context("GET", "/v/assets/otp.js")
        let plain = try #require(Self.immediate(headers.respond(to: &asset, next: cacheable)))
        #expect(plain.headers.filter { $0.name == "Cache-Control" }.map(\.value) == ["public, max-age=300"])
        #expect(!plain.headers.contains { $0.name == "Content-Security-Policy" })
    }

    /// Notes when it sees the request and when the reply passes back.
    struct Tracer: Middleware {
        let name: String
        let journal: Locked<[String]>

        func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply
        {
            journal.withLock { $0.append("\(name) in") }
            let reply = next(&context)
            journal.withLock { $0.append("\(name) out") }
            return reply
        }
    }

    @Test(
        "a chain runs its middleware in order and hands the reply back in reverse; the first to answer ends it"
    )
    func chain() {
        let journal = Locked<[String]>([])
        let terminal = Terminal()
        let chain = MiddlewareChain([
            Tracer(name: "a", journal: journal), Tracer(name: "b", journal: journal), BodyLimit(),
            Tracer(name: "c", journal: journal),
        ])
        var fine = Self.context("POST", "/v1/verifications")
        #expect(Self.immediate(chain.respond(to: &fine, handler: terminal.answer))?.status == 200)
        #expect(journal.withLock { $0 } == ["a in", "b in", "c in", "c out", "b out", "a out"])
        journal.withLock { $0 = [] }
        var large = Self.context("POST", "/v1/verifications", tooLarge: true)
        #expect(Self.immediate(chain.respond(to: &large, handler: terminal.answer))?.status == 413)
        #expect(journal.withLock { $0 } == ["a in", "b in", "b out", "a out"])
        #expect(terminal.count == 1)
    }

    @Test(
        "a sane X-Request-Id is kept and echoed; a missing or odd one is replaced by a made one",
        arguments: [
            ("client-7f3a.9:retry/2", true), ("", false), (String(repeating: "a", count: 129), false),
            ("has space", false), ("line\nbreak", false), ("quote\"", false), ("ümlaut", false),
        ])
    func requestIDs(incoming: String, kept: Bool) throws {
        let ids = RequestIDs(make: { "made-1" })
        var context = Self.context("GET", "/healthz", headers: ["x-request-id": incoming])
        let reply = ids.respond(to: &context) { context in
            .now(HTTPResponse(status: 200, route: context.template))
        }
        let response = try #require(Self.immediate(reply))
        let expected = kept ? incoming : "made-1"
        #expect(context.requestID == expected)
        #expect(response.requestID == expected)
        #expect(response.headers.filter { $0.name == "X-Request-Id" }.map(\.value) == [expected])
    }

    @Test("made request ids never repeat, and two handlers' ids differ in their prefix")
    func madeIDs() {
        let first = RequestIDs.sequence(prefix: RequestIDs.randomPrefix())
        let made = (0..<1000).map { _ in first() }
        #expect(Set(made).count == 1000)
        #expect(made.allSatisfy(RequestIDs.isSane))
        #expect(RequestIDs.randomPrefix() != RequestIDs.randomPrefix())
    }
}
