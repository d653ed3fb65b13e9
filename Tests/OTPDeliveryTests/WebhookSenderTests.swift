import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
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

    @Test(
        "the body is the message as JSON and the signature is the timestamped HMAC-SHA256 of those exact bytes"
    )
    func signedPost() async throws {
        let endpoint = try await Receiver.start("http", ["--status", "204"])
        defer { endpoint.stop() }
        try await sender(port: endpoint.port).send(email)
        let record = try #require(try endpoint.records().first)
        #expect(record["path"] as? String == "/hooks/otp")
        let body = try #require(Data(base64Encoded: record["body"] as? String ?? ""))
        let headers = try #require(record["headers"] as? [String: String])
        #expect(headers["content-type"] == "application/json")
        let header = try #require(headers["x-otp-signature"])
        #expect(
            header
                == (try WebhookSender.signature(
                    body: Array(body), secret: secret, purpose: .delivery, timestamp: 1_800_000_000)))
        #expect(
            WebhookSender.verify(
                header: header, body: Array(body), secret: secret, purpose: .delivery,
                now: Date(timeIntervalSince1970: 1_800_000_100)))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["verificationId"] as? String == "vf_hook")
        #expect(object["channel"] as? String == "email")
        #expect(object["to"] as? String == "ada@example.org")
        #expect(object["text"] as? String == "Your code is 482019.")
        #expect(object["html"] as? String == "<b>482019</b>")
        #expect(object["sentAt"] as? String == "2027-01-15T08:00:00.250Z")
    }

    @Test(
        "the signature is HMAC-SHA256 of the timestamp, the purpose and the body, dot separated (known answer)"
    )
    func knownAnswer() throws {
        // RFC 4231 case 2's key and text behind the timestamp and purpose; the value was computed with
        // Python's hmac module.
        let signature = try WebhookSender.signature(
            body: Array("what do ya want for nothing?".utf8), secret: Array("Jefe".utf8), purpose: .delivery,
            timestamp: 1_800_000_000)
        #expect(
            signature
                == "t=1800000000,p=delivery,v1=36d7f1da96c57ce8d198f82d9308958ae84f915dea5438bd0964d7318db3fb71"
        )
    }

    @Test("a signature made for one purpose does not verify for another, under the same secret")
    func purposes() throws {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for made in WebhookSender.SignaturePurpose.allCases {
            let header = try WebhookSender.signature(
                body: body, secret: secret, purpose: made, timestamp: 1_800_000_000)
            for checked in WebhookSender.SignaturePurpose.allCases {
                #expect(
                    WebhookSender.verify(
                        header: header, body: body, secret: secret, purpose: checked, now: now)
                        == (made == checked), "\(made) checked as \(checked)")
            }
            // The purpose in the header is informative: changing it does not change what was signed.
            let relabelled = header.replacingOccurrences(of: "p=\(made.rawValue)", with: "p=delivery")
            #expect(
                !WebhookSender.verify(
                    header: relabelled, body: body, secret: secret, purpose: .delivery, now: now)
                    || made == .delivery)
        }
    }

    @Test("any timestamp outside the tolerance is refused without trapping, the extremes included")
    func extremeTimestamps() throws {
        let body = Array("{}".utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for t in [Int64.min, Int64.min + 1, -1, 0, Int64.max, Int64.max - 1, 1_800_000_301, 1_799_999_699] {
            let header = "t=\(t),p=delivery,v1=" + String(repeating: "0", count: 64)
            #expect(
                !WebhookSender.verify(
                    header: header, body: body, secret: secret, purpose: .delivery, now: now))
            let signed = try WebhookSender.signature(
                body: body, secret: secret, purpose: .delivery, timestamp: t)
            #expect(
                !WebhookSender.verify(
                    header: signed, body: body, secret: secret, purpose: .delivery, now: now))
        }
        let signed = try WebhookSender.signature(
            body: body, secret: secret, purpose: .delivery, timestamp: Int64.min)
        for instant in [Date.distantFuture, Date.distantPast, Date(timeIntervalSince1970: .infinity)] {
            #expect(
                !WebhookSender.verify(
                    header: signed, body: body, secret: secret, purpose: .delivery, now: instant))
        }
    }

    @Test("a receiver refuses a replayed, tampered, unsigned or foreign-key request")
    func verifyRefuses() throws {
        let body = Array(#"{"verificationId":"vf_x"}"#.utf8)
        let header = try WebhookSender.signature(
            body: body, secret: secret, purpose: .delivery, timestamp: 1_800_000_000)
        let at = { (seconds: Double) in Date(timeIntervalSince1970: seconds) }
        #expect(
            WebhookSender.verify(
                header: header, body: body, secret: secret, purpose: .delivery, now: at(1_800_000_300)))
        #expect(
            WebhookSender.verify(
                header: header, body: body, secret: secret, purpose: .delivery, now: at(1_799_999_700)))
        #expect(
            !WebhookSender.verify(
                header: header, body: body, secret: secret, purpose: .delivery, now: at(1_800_000_301)))
        #expect(
            !WebhookSender.verify(
                header: header, body: body, secret: secret, purpose: .delivery, now: at(1_799_999_699)))
        #expect(
            !WebhookSender.verify(
                header: header, body: body + [0x20], secret: secret, purpose: .delivery,
                now: at(1_800_000_000))
        )
        #expect(
            !WebhookSender.verify(
                header: header, body: body, secret: Array("other".utf8), purpose: .delivery,
                now: at(1_800_000_000)))
        let moved = header.replacingOccurrences(of: "t=1800000000", with: "t=1800000100")
        #expect(
            !WebhookSender.verify(
                header: moved, body: body, secret: secret, purpose: .delivery, now: at(1_800_000_100)))
        for bad in ["", "v1=abc", "t=1800000000", "sha256=00"] {
            #expect(
                !WebhookSender.verify(
                    header: bad, body: body, secret: secret, purpose: .delivery, now: at(1_800_000_000)),
                "\(bad)")
        }
    }

    @Test(
        "plain http is refused except to this machine",
        arguments: [
            ("http://hooks.example.com/otp", false), ("http://127.0.0.1:9/x", true),
            ("http://[::1]:9/x", true),
            ("http://localhost/x", true), ("https://hooks.example.com/otp", true), ("ftp://x", false),
            ("http://127.0.0.1.evil.example/x", false), ("http://user@10.0.0.1/x", false),
            ("http://user@127.0.0.1/x", false), ("https://user:secret@hooks.example.com/otp", false),
            ("http://127.0.0.2:9/x", true), ("HTTP://LOCALHOST:9/x", true),
            ("http://[::1]@evil.example/", false),
            ("http://evil.example#@127.0.0.1/", false), ("https://", false), ("not a url", false),
        ])
    func plainHTTP(url: String, accepted: Bool) {
        let made = try? WebhookSender(url: url, secret: secret)
        #expect((made != nil) == accepted, "\(url)")
        let twilio = try? TwilioConfiguration(environment: [
            "OTP_TWILIO_ACCOUNT_SID": "AC1", "OTP_TWILIO_AUTH_TOKEN": "t", "OTP_TWILIO_FROM": "+15550100",
            "OTP_TWILIO_BASE_URL": url,
        ])
        #expect((twilio != nil) == accepted, "\(url)")
    }

    @Test("a URL is parsed once, by libcurl: the sender posts to the URL libcurl read, and names no secret")
    func parsedOnce() throws {
        let sender = try WebhookSender(url: "HTTP://127.0.0.1:9/Hooks/otp?x=1", secret: secret)
        #expect(sender.url == "http://127.0.0.1:9/Hooks/otp?x=1")
        do {
            _ = try WebhookSender(url: "https://user:hunter2@hooks.example.com/otp", secret: secret)
            Issue.record("a URL with a password was accepted")
        } catch {
            #expect(error.reason.contains("user name or password"))
            #expect(!error.reason.contains("hunter2"))
        }
    }

    @Test("an endpoint's JSON `messageId` comes back as the receipt; any other answer gives none")
    func receipt() async throws {
        let named = try await Receiver.start(
            "http", ["--status", "200", "--answer", #"{"messageId":"wh-42"}"#])
        defer { named.stop() }
        #expect(
            try await sender(port: named.port).sendWithReceipt(email) == DeliveryReceipt(messageID: "wh-42"))
        let unnamed = try await Receiver.start("http", ["--status", "200"])
        defer { unnamed.stop() }
        #expect(try await sender(port: unnamed.port).sendWithReceipt(email) == DeliveryReceipt())
    }

    @Test(
        "a message id is kept only as 1 to 128 printable ASCII characters of a JSON string",
        arguments: [
            ("{\"messageId\":\"SM1\"}", "SM1"), ("{\"messageId\":\"\"}", nil), ("{\"messageId\":42}", nil),
            ("{\"messageId\":\"a b\"}", nil), ("[\"SM1\"]", nil), ("not json", nil),
            ("{\"messageId\":\"" + String(repeating: "x", count: 129) + "\"}", nil),
        ] as [(String, String?)])
    func messageIDs(body: String, expected: String?) {
        #expect(ProviderReceipt.messageID(in: body, field: "messageId") == expected)
    }

    @Test("an endpoint that answers with an error is a delivery failure", arguments: [400, 404, 500])
    func refused(status: Int) async throws {
        let endpoint = try await Receiver.start("http", ["--status", "\(status)"])
        defer { endpoint.stop() }
        await #expect(
            throws: DeliveryError("webhook delivery: the endpoint answered \(status)", status: status)
        ) {
            try await sender(port: endpoint.port).send(email)
        }
    }

    @Test("an endpoint that is down is a delivery failure")
    func down() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
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
