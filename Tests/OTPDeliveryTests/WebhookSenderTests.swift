import Foundation
import OTPCore
import OTPServer
import Testing

@testable import OTPDelivery

@Suite struct WebhookSenderTests {
    let secret = Array("webhook-secret".utf8)
    let email = OutgoingMessage(
        verificationID: "vf_hook", channel: .email, to: "ada@example.org", subject: "Your code",
        text: "Your code is 482019.", html: "<b>482019</b>")

    func sender(port: Int, timeout: Duration = .seconds(5)) throws -> WebhookSender {
        try WebhookSender(
            url: "http://127.0.0.1:\(port)/hooks/otp", secret: secret, timeout: timeout,
            now: { Date(timeIntervalSince1970: 1_800_000_000.25) })
    }

    @Test("the body is the message as JSON and the signature is the HMAC-SHA256 of those exact bytes")
    func signedPost() async throws {
        let endpoint = try await Receiver.start("http", ["--status", "204"])
        defer { endpoint.stop() }
        try await sender(port: endpoint.port).send(email)
        let record = try #require(try endpoint.records().first)
        #expect(record["path"] as? String == "/hooks/otp")
        let body = try #require(Data(base64Encoded: record["body"] as? String ?? ""))
        let headers = try #require(record["headers"] as? [String: String])
        #expect(headers["content-type"] == "application/json")
        #expect(
            headers["x-otp-signature"] == (try WebhookSender.signature(body: Array(body), secret: secret)))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["verificationId"] as? String == "vf_hook")
        #expect(object["channel"] as? String == "email")
        #expect(object["to"] as? String == "ada@example.org")
        #expect(object["text"] as? String == "Your code is 482019.")
        #expect(object["html"] as? String == "<b>482019</b>")
        #expect(object["sentAt"] as? String == "2027-01-15T08:00:00.250Z")
    }

    @Test("the signature matches an HMAC-SHA256 known-answer vector (RFC 4231 case 2)")
    func knownAnswer() throws {
        let signature = try WebhookSender.signature(
            body: Array("what do ya want for nothing?".utf8), secret: Array("Jefe".utf8))
        #expect(signature == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("an endpoint that answers with an error is a delivery failure", arguments: [400, 404, 500])
    func refused(status: Int) async throws {
        let endpoint = try await Receiver.start("http", ["--status", "\(status)"])
        defer { endpoint.stop() }
        await #expect(throws: DeliveryError("webhook delivery: the endpoint answered \(status)")) {
            try await sender(port: endpoint.port).send(email)
        }
    }

    @Test("an endpoint that is down is a delivery failure")
    func down() async throws {
        let port = try closedPort()
        await #expect(throws: DeliveryError.self) { try await sender(port: port).send(email) }
    }

    @Test("an endpoint that stalls is given up after the timeout, with no retry")
    func timeout() async throws {
        let endpoint = try await Receiver.start("http", ["--hang"])
        defer { endpoint.stop() }
        await #expect(throws: DeliveryError.self) {
            try await sender(port: endpoint.port, timeout: .milliseconds(300)).send(email)
        }
        #expect(try endpoint.records().count == 1)
    }

    @Test("a URL that is not http(s) or an empty secret is refused")
    func badConfiguration() {
        #expect(throws: DeliveryError.self) { try WebhookSender(url: "ftp://x", secret: [1]) }
        #expect(throws: DeliveryError.self) { try WebhookSender(url: "http://x", secret: []) }
    }
}

@Suite struct ChannelRouterTests {
    struct Recording: CodeSender {
        let name: String
        let log: Log
        func send(_ message: OutgoingMessage) async throws(DeliveryError) { await log.add(name) }
    }

    actor Log {
        var names: [String] = []
        func add(_ name: String) { names.append(name) }
    }

    @Test("each channel goes to its own sender, and a channel without one fails")
    func routes() async throws {
        let log = Log()
        let router = ChannelRouter(routes: [.email: Recording(name: "mail", log: log)])
        #expect(router.channels == [.email])
        try await router.send(
            OutgoingMessage(
                verificationID: "v", channel: .email, to: "a@b.co", subject: "", text: "", html: nil))
        await #expect(throws: DeliveryError("no sender is configured for sms")) {
            try await router.send(
                OutgoingMessage(
                    verificationID: "v", channel: .sms, to: "+1555", subject: "", text: "", html: nil))
        }
        #expect(await log.names == ["mail"])
    }
}
