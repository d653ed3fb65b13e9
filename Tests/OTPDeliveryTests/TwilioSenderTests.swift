import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPDelivery

@Suite struct TwilioSenderTests {
    let sms = OutgoingMessage(
        verificationID: "vf_test", channel: .sms, to: "+15550100", subject: "",
        text: "Your Acme code is 482019.\n\n@example.com #482019", html: nil)

    func sender(port: Int, service: String? = nil, timeout: Duration = .seconds(5)) -> TwilioSender {
        TwilioSender(
            configuration: TwilioConfiguration(
                baseURL: "http://127.0.0.1:\(port)/", accountSID: "AC123", authToken: "tok",
                from: service == nil ? "+15550199" : nil, messagingServiceSID: service, timeout: timeout))
    }

    func form(_ record: [String: Any]) throws -> [String: String] {
        let body = try #require(Data(base64Encoded: record["body"] as? String ?? ""))
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    @Test("a message is one form POST to the account's Messages resource with basic auth")
    func delivers() async throws {
        let provider = try await Receiver.start("http", ["--status", "201"])
        defer { provider.stop() }
        try await sender(port: provider.port).send(sms)
        let record = try #require(try provider.records().first)
        #expect(record["path"] as? String == "/2010-04-01/Accounts/AC123/Messages.json")
        let headers = try #require(record["headers"] as? [String: String])
        #expect(headers["authorization"] == "Basic " + Data("AC123:tok".utf8).base64EncodedString())
        #expect(headers["content-type"] == "application/x-www-form-urlencoded")
        let fields = try form(record)
        #expect(fields == ["To": "+15550100", "From": "+15550199", "Body": sms.text])
    }

    @Test("the provider's message SID comes back as the receipt; an answer without one gives none")
    func receipt() async throws {
        let provider = try await Receiver.start("http", ["--status", "201"])
        defer { provider.stop() }
        #expect(
            try await sender(port: provider.port).sendWithReceipt(sms) == DeliveryReceipt(messageID: "SM0000")
        )
        let plain = try await Receiver.start("http", ["--status", "201", "--answer", "queued"])
        defer { plain.stop() }
        #expect(try await sender(port: plain.port).sendWithReceipt(sms) == DeliveryReceipt())
    }

    @Test("a messaging service replaces the From number")
    func messagingService() async throws {
        let provider = try await Receiver.start("http")
        defer { provider.stop() }
        try await sender(port: provider.port, service: "MG1").send(sms)
        let fields = try form(try #require(try provider.records().first))
        #expect(fields["MessagingServiceSid"] == "MG1")
        #expect(fields["From"] == nil)
    }

    @Test("a provider that refuses the message is a delivery failure", arguments: [400, 401, 500, 503])
    func refused(status: Int) async throws {
        let provider = try await Receiver.start("http", ["--status", "\(status)"])
        defer { provider.stop() }
        await #expect(throws: DeliveryError("SMS delivery: the provider answered \(status)", status: status))
        {
            try await sender(port: provider.port).send(sms)
        }
        #expect(try provider.records().count == 1)
    }

    @Test("a refusal carries the provider's status and error code, and none of its message")
    func refusalCause() async throws {
        let provider = try await Receiver.start("http", ["--status", "400", "--error-code", "21211"])
        defer { provider.stop() }
        let error = await #expect(throws: DeliveryError.self) {
            try await sender(port: provider.port).send(sms)
        }
        #expect(error?.status == 400)
        #expect(error?.providerCode == "21211")
        #expect(error?.reason == "SMS delivery: the provider answered 400 (error 21211)")
        #expect(error?.reason.contains("5550123") == false, "the provider's message quotes the number")
    }

    @Test("a provider that is down is a delivery failure")
    func down() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        await #expect(throws: DeliveryError.self) { try await sender(port: port).send(sms) }
    }

    @Test("a provider that does not answer in time is a delivery failure, tried once")
    func timeout() async throws {
        let provider = try await Receiver.start("http", ["--hang"])
        defer { provider.stop() }
        await #expect(throws: DeliveryError.self) {
            try await sender(port: provider.port, timeout: .milliseconds(300)).send(sms)
        }
        #expect(try provider.records().count == 1)
    }

    @Test("the SMS sender refuses email messages")
    func refusesEmail() async {
        let email = OutgoingMessage(
            verificationID: "vf", channel: .email, to: "a@example.org", subject: "s", text: "t", html: nil)
        await #expect(throws: DeliveryError("the twilio sender delivers SMS only")) {
            try await sender(port: 1).send(email)
        }
    }

    @Test("the configuration comes from the environment")
    func environment() throws {
        let configuration = try TwilioConfiguration(environment: [
            "OTP_TWILIO_ACCOUNT_SID": "AC9", "OTP_TWILIO_AUTH_TOKEN": "t", "OTP_TWILIO_FROM": "+15550111",
            "OTP_TWILIO_BASE_URL": "http://127.0.0.1:9",
        ])
        #expect(configuration.messagesURL == "http://127.0.0.1:9/2010-04-01/Accounts/AC9/Messages.json")
        #expect(
            try TwilioConfiguration(environment: [
                "OTP_TWILIO_ACCOUNT_SID": "AC9", "OTP_TWILIO_AUTH_TOKEN": "t", "OTP_TWILIO_FROM": "+1",
            ]).baseURL == "https://api.twilio.com/", "the base URL as libcurl reads it, parsed once")
    }

    @Test(
        "a missing account, sender or a bad base URL is refused",
        arguments: [
            ["OTP_TWILIO_AUTH_TOKEN": "t", "OTP_TWILIO_FROM": "+1"],
            ["OTP_TWILIO_ACCOUNT_SID": "AC", "OTP_TWILIO_FROM": "+1"],
            ["OTP_TWILIO_ACCOUNT_SID": "AC", "OTP_TWILIO_AUTH_TOKEN": "t"],
            [
                "OTP_TWILIO_ACCOUNT_SID": "AC", "OTP_TWILIO_AUTH_TOKEN": "t", "OTP_TWILIO_FROM": "+1",
                "OTP_TWILIO_BASE_URL": "ftp://x",
            ],
        ])
    func incomplete(environment: [String: String]) {
        #expect(throws: DeliveryError.self) { try TwilioConfiguration(environment: environment) }
    }
}
