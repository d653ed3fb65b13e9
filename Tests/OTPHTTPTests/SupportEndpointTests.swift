import Foundation
import OTPCore
import OTPEngine
import Testing

@testable import OTPHTTP

/// `GET /v1/verifications` and `GET /v1/verifications/{id}/deliveries`: the support views.
@Suite struct SupportEndpointTests {
    static let publishable = "pk_support_test_0123456789abcdef"

    static func api() -> InProcessAPI {
        InProcessAPI(keys: APIKeys([InProcessAPI.key], publishable: ["app": publishable]))
    }

    /// Starts a verification to `to` and answers its id.
    static func start(_ api: InProcessAPI, to: String = "+12025550123") async throws -> String {
        let answer = await api.call("POST", "/v1/verifications", json: #"{"to":"\#(to)"}"#)
        #expect(answer.status == 201)
        return try #require(answer.json["id"] as? String)
    }

    static func items(_ answer: InProcessAPI.Answer) -> [[String: Any]] {
        answer.json["items"] as? [[String: Any]] ?? []
    }

    @Test("a search by destination answers its verifications newest first, masked, each with its deliveries")
    func search() async throws {
        let api = Self.api()
        let older = try await Self.start(api)
        api.clock.advance(by: .seconds(1))
        let newer = try await Self.start(api)
        _ = try await Self.start(api, to: "+12025550124")
        let answer = await api.call(
            "GET", "/v1/verifications", query: ["destination": "+1 (202) 555-0123"])
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/json")
        let items = Self.items(answer)
        #expect(items.compactMap { $0["id"] as? String } == [newer, older])
        #expect(items.allSatisfy { $0["to"] as? String == "+1 ••• ••• 0123" })
        #expect(items.allSatisfy { $0["status"] as? String == "pending" })
        #expect(!answer.text.contains("2025550123"), "the full destination never appears")
        let deliveries = try #require(items.first?["deliveries"] as? [[String: Any]])
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["step"] as? String == "start")
        #expect(deliveries.first?["outcome"] as? String == "sent")
        #expect(deliveries.first?["channel"] as? String == "sms")
        #expect(deliveries.first?["error"] is NSNull)
        #expect(deliveries.first?["messageId"] is NSNull)
        #expect((deliveries.first?["at"] as? String).flatMap(WireCoding.parse) == api.clock.date)
        #expect(answer.json["nextCursor"] is NSNull)
    }

    @Test("a cursor pages through the answer; status and since narrow it")
    func pagingAndFilters() async throws {
        let api = Self.api()
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(try await Self.start(api))
            api.clock.advance(by: .seconds(10))
        }
        let canceled = await api.call("POST", "/v1/verifications/\(ids[0])/cancel")
        #expect(canceled.status == 200)
        let first = await api.call(
            "GET", "/v1/verifications", query: ["destination": "+12025550123", "limit": "2"])
        #expect(Self.items(first).compactMap { $0["id"] as? String } == [ids[2], ids[1]])
        let cursor = try #require(first.json["nextCursor"] as? String)
        let second = await api.call(
            "GET", "/v1/verifications",
            query: ["destination": "+12025550123", "limit": "2", "cursor": cursor])
        #expect(Self.items(second).compactMap { $0["id"] as? String } == [ids[0]])
        #expect(second.json["nextCursor"] is NSNull)

        let byStatus = await api.call(
            "GET", "/v1/verifications", query: ["destination": "+12025550123", "status": "canceled"])
        #expect(Self.items(byStatus).compactMap { $0["id"] as? String } == [ids[0]])
        let since = WireCoding.format(api.clock.date.addingTimeInterval(-20))
        let recent = await api.call(
            "GET", "/v1/verifications", query: ["destination": "+12025550123", "since": since])
        #expect(Self.items(recent).compactMap { $0["id"] as? String } == [ids[2], ids[1]])
    }

    @Test(
        "a malformed search is 400 invalid_request",
        arguments: [
            [:], ["destination": ""], ["destination": "+12025550123", "status": "sent"],
            ["destination": "+12025550123", "since": "yesterday"],
            ["destination": "+12025550123", "limit": "0"], ["destination": "+12025550123", "limit": "101"],
            ["destination": "+12025550123", "limit": "ten"], ["destination": "+12025550123", "limit": "-5"],
            ["destination": "+12025550123", "cursor": "not a cursor"],
            ["destination": "+12025550123", "cursor": "MTIzLg"],
        ])
    func malformed(query: [String: String]) async {
        let answer = await Self.api().call("GET", "/v1/verifications", query: query)
        #expect(answer.status == 400)
        #expect(answer.errorCode == "invalid_request")
    }

    @Test("a search for what is no destination is 400 invalid_destination")
    func invalidDestination() async {
        let answer = await Self.api().call("GET", "/v1/verifications", query: ["destination": "nobody"])
        #expect(answer.status == 400)
        #expect(answer.errorCode == "invalid_destination")
    }

    @Test("a verification's deliveries answer each attempt; an unknown id is 404")
    func deliveries() async throws {
        let api = Self.api()
        let id = try await Self.start(api)
        api.clock.advance(by: .seconds(30))
        #expect(await api.call("POST", "/v1/verifications/\(id)/resend").status == 200)
        let answer = await api.call("GET", "/v1/verifications/\(id)/deliveries")
        #expect(answer.status == 200)
        let attempts = try #require(answer.json["deliveries"] as? [[String: Any]])
        #expect(attempts.compactMap { $0["step"] as? String } == ["start", "resend"])
        #expect(attempts.compactMap { $0["outcome"] as? String } == ["sent", "sent"])
        let unknown = await api.call("GET", "/v1/verifications/vf_unknown/deliveries")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "not_found")
    }

    @Test(
        "a publishable key gets 403 forbidden and no key 401, on both views",
        arguments: ["/v1/verifications", "/v1/verifications/vf_x/deliveries"])
    func keys(path: String) async {
        let api = Self.api()
        let query = ["destination": "+12025550123"]
        let forbidden = await api.call("GET", path, key: Self.publishable, query: query)
        #expect(forbidden.status == 403)
        #expect(forbidden.errorCode == "forbidden")
        let unauthorized = await api.call("GET", path, key: nil, query: query)
        #expect(unauthorized.status == 401)
    }

    @Test("a store that does not answer is 503 store_unavailable on both views")
    func storeUnavailable() async throws {
        let api = Self.api()
        let id = try await Self.start(api)
        await api.store.shutdown()
        let search = await api.call("GET", "/v1/verifications", query: ["destination": "+12025550123"])
        #expect(search.status == 503)
        #expect(search.errorCode == "store_unavailable")
        let deliveries = await api.call("GET", "/v1/verifications/\(id)/deliveries")
        #expect(deliveries.status == 503)
        #expect(deliveries.errorCode == "store_unavailable")
    }

    /// A sender whose provider names each message `SM1`.
    struct NamingSender: CodeSender {
        func send(_ message: OutgoingMessage) async throws(DeliveryError) {}

        func sendWithReceipt(_ message: OutgoingMessage) async throws(DeliveryError) -> DeliveryReceipt {
            DeliveryReceipt(messageID: "SM1")
        }
    }

    @Test("the server's counting sender passes the provider's message id on")
    func countingSenderKeepsReceipts() async throws {
        let metrics = ServerMetrics()
        let sender = MetricsSender(base: NamingSender(), metrics: metrics)
        let message = OutgoingMessage(
            verificationID: "vf_1", channel: .email, to: "a@example.org", subject: "s", text: "t", html: nil)
        #expect(try await sender.sendWithReceipt(message) == DeliveryReceipt(messageID: "SM1"))
        #expect(
            metrics.prometheusText(eventBacklog: nil).contains(
                "otp_sends_total{channel=\"email\",result=\"sent\"} 1"))
    }

    @Test("GET and POST share /v1/verifications; another method is 405 naming both")
    func methods() async {
        let answer = await Self.api().call("DELETE", "/v1/verifications")
        #expect(answer.status == 405)
        #expect(answer.header("Allow") == "POST, GET, HEAD")
        let deliveries = await Self.api().call("POST", "/v1/verifications/vf_x/deliveries")
        #expect(deliveries.status == 405)
        #expect(deliveries.header("Allow") == "GET, HEAD")
        #expect(Route(path: "/v1/verifications", method: "GET") == .search)
        #expect(Route(path: "/v1/verifications", method: "POST") == .start)
        #expect(Route(path: "/v1/verifications/vf_1/deliveries") == .deliveries(id: "vf_1"))
    }
}
