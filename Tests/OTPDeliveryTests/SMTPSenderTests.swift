import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPDelivery

@Suite struct SMTPSenderTests {
    static let fixed = Date(timeIntervalSince1970: 1_800_000_000)

    func message(to: String = "ada@example.org", channel: Channel = .email) -> OutgoingMessage {
        OutgoingMessage(
            verificationID: "vf_test123", channel: channel, to: to, subject: "Your Acme code",
            text: "Your Acme code is 482019. It expires in 5 minutes.\n\n@example.com #482019",
            html: "<p>Your Acme code is</p><p style=\"font-size:32px\">482019</p>")
    }

    func sender(
        port: Int, security: SMTPConfiguration.Security = .none, user: String? = nil,
        password: String? = nil, caFile: String? = nil, timeout: Duration = .seconds(5)
    ) -> SMTPSender {
        SMTPSender(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: port, security: security, username: user, password: password,
                from: "no-reply@example.com", fromName: "Acme", caFile: caFile, timeout: timeout),
            now: { Self.fixed })
    }

    @Test("a plain SMTP delivery carries a text and an HTML part to the one recipient")
    func plainDelivery() async throws {
        let server = try await Receiver.start("smtp")
        defer { server.stop() }
        try await sender(port: server.port).send(message())
        let records = try server.records()
        #expect(records.count == 1)
        #expect(records.first?["from"] as? String == "no-reply@example.com")
        #expect(records.first?["to"] as? [String] == ["ada@example.org"])
        let mail = try server.mail(1)
        #expect(mail.contains("Subject: Your Acme code\r\n"))
        #expect(mail.contains("From: Acme <no-reply@example.com>\r\n"))
        #expect(mail.contains("Date: Fri, 15 Jan 2027 08:00:00 +0000\r\n"))
        #expect(mail.contains("Content-Type: multipart/alternative"))
        #expect(mail.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(mail.contains("Content-Type: text/html; charset=utf-8"))
        #expect(mail.contains("@example.com #482019"))
        #expect(mail.contains("font-size:32px"))
    }

    @Test("STARTTLS with an account authenticates over the upgraded connection")
    func startTLSWithAccount() async throws {
        let server = try await Receiver.start("smtp", ["--security", "starttls", "--auth", "mailer:s3cret"])
        defer { server.stop() }
        try await sender(
            port: server.port, security: .startTLS, user: "mailer", password: "s3cret",
            caFile: server.certificate
        ).send(message())
        let record = try #require(try server.records().first)
        #expect(record["tls"] as? Bool == true)
        #expect(record["login"] as? String == "mailer")
    }

    @Test("SMTPS speaks TLS from the first byte")
    func implicitTLS() async throws {
        let server = try await Receiver.start("smtp", ["--security", "tls", "--auth", "mailer:s3cret"])
        defer { server.stop() }
        try await sender(
            port: server.port, security: .tls, user: "mailer", password: "s3cret", caFile: server.certificate
        ).send(message())
        #expect(try server.records().first?["tls"] as? Bool == true)
    }

    @Test("a wrong password is a delivery failure")
    func wrongPassword() async throws {
        let server = try await Receiver.start("smtp", ["--security", "starttls", "--auth", "mailer:s3cret"])
        defer { server.stop() }
        let failing = sender(
            port: server.port, security: .startTLS, user: "mailer", password: "wrong",
            caFile: server.certificate)
        await #expect(throws: DeliveryError.self) { try await failing.send(message()) }
        #expect(try server.records().isEmpty)
    }

    @Test("a server that does not offer STARTTLS is refused when STARTTLS is required")
    func startTLSRequired() async throws {
        let server = try await Receiver.start("smtp")
        defer { server.stop() }
        await #expect(throws: DeliveryError.self) {
            try await sender(port: server.port, security: .startTLS).send(message())
        }
        #expect(try server.records().isEmpty)
    }

    @Test("a certificate nobody vouches for is refused")
    func untrustedCertificate() async throws {
        let server = try await Receiver.start("smtp", ["--security", "tls"])
        defer { server.stop() }
        await #expect(throws: DeliveryError.self) {
            try await sender(port: server.port, security: .tls).send(message())
        }
    }

    @Test("a recipient the server rejects is a delivery failure that names no address")
    func rejectedRecipient() async throws {
        let server = try await Receiver.start("smtp", ["--reject"])
        defer { server.stop() }
        do {
            try await sender(port: server.port).send(message())
            Issue.record("the delivery should have failed")
        } catch {
            #expect(!error.reason.contains("ada@example.org"))
            #expect(!error.reason.contains("482019"))
        }
    }

    @Test("a server that is down is a delivery failure")
    func serverDown() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        await #expect(throws: DeliveryError.self) { try await sender(port: port).send(message()) }
    }

    @Test("the SMTP sender refuses SMS messages")
    func refusesSMS() async throws {
        await #expect(throws: DeliveryError("the SMTP sender delivers email only")) {
            try await sender(port: 1).send(message(to: "+15550100", channel: .sms))
        }
    }

    @Test("a destination with a line break cannot add headers")
    func headerInjection() async throws {
        await #expect(throws: DeliveryError.self) {
            try await sender(port: 1).send(message(to: "a@example.org\r\nBcc: b@example.org"))
        }
    }
}

@Suite struct SMTPConfigurationTests {
    @Test(
        "URL schemes choose the security and default port",
        arguments: [
            ("smtp://mail.example.com", SMTPConfiguration.Security.none, 25),
            ("smtp+starttls://mail.example.com", .startTLS, 587),
            ("smtps://mail.example.com", .tls, 465),
            ("smtps://mail.example.com:2465/", .tls, 2465),
        ])
    func schemes(url: String, security: SMTPConfiguration.Security, port: Int) throws {
        let configuration = try SMTPConfiguration(url: url, environment: [:], domain: "example.com")
        #expect(configuration.security == security)
        #expect(configuration.port == port)
        #expect(configuration.host == "mail.example.com")
        #expect(configuration.from == "no-reply@example.com")
    }

    @Test("the account and sender address come from the environment")
    func environment() throws {
        let configuration = try SMTPConfiguration(
            url: "smtp+starttls://mail.example.com",
            environment: [
                "OTP_SMTP_USERNAME": "mailer", "OTP_SMTP_PASSWORD": "pw",
                "OTP_SMTP_FROM": "codes@example.net",
                "OTP_SMTP_CA_FILE": "/etc/ca.pem",
            ])
        #expect(configuration.username == "mailer")
        #expect(configuration.password == "pw")
        #expect(configuration.from == "codes@example.net")
        #expect(configuration.caFile == "/etc/ca.pem")
        #expect(configuration.curlURL == "smtp://mail.example.com:587")
    }

    @Test(
        "malformed SMTP URLs are refused",
        arguments: [
            "http://mail.example.com", "smtp://", "smtp://user:pw@mail.example.com", "smtp://mail:0",
            "smtp://mail:port", "smtp://mail/path",
        ])
    func malformed(url: String) {
        #expect(throws: DeliveryError.self) { try SMTPConfiguration(url: url, environment: [:]) }
    }

    @Test("without a From address or a domain the SMTP configuration is refused; either one gives it")
    func fromNeeded() throws {
        let error = #expect(throws: DeliveryError.self) {
            try SMTPConfiguration(url: "smtp://mail", environment: [:])
        }
        #expect(error?.reason.contains("--mail-from") == true)
        #expect(
            try SMTPConfiguration(url: "smtp://mail", environment: [:], domain: "example.org").from
                == "no-reply@example.org")
        #expect(
            try SMTPConfiguration(
                url: "smtp://mail", environment: [:], domain: "example.org", from: "otp@example.net"
            )
            .from == "otp@example.net")
        #expect(
            try SMTPConfiguration(url: "smtp://mail", environment: ["OTP_SMTP_FROM": "codes@example.com"])
                .from
                == "codes@example.com")
    }

    @Test("a sender address with a line break is refused")
    func badFrom() {
        #expect(throws: DeliveryError.self) {
            try SMTPConfiguration(url: "smtp://mail", environment: ["OTP_SMTP_FROM": "a@b\r\nBcc: c@d"])
        }
    }
}

@Suite struct MailComposerTests {
    @Test("quoted-printable escapes '=' and non-ASCII, keeps lines under 77 characters")
    func quotedPrintable() {
        #expect(MailComposer.quotedPrintable("a=b") == "a=3Db")
        #expect(MailComposer.quotedPrintable("é") == "=C3=A9")
        #expect(MailComposer.quotedPrintable("end \nnext") == "end=20\r\nnext")
        let long = MailComposer.quotedPrintable(String(repeating: "x", count: 200))
        #expect(long.components(separatedBy: "\r\n").allSatisfy { $0.count <= 76 })
        #expect(long.replacingOccurrences(of: "=\r\n", with: "") == String(repeating: "x", count: 200))
    }

    @Test("a non-ASCII subject is an encoded word")
    func encodedSubject() {
        #expect(MailComposer.encodeWord("Code für Acme") == "=?UTF-8?B?Q29kZSBmw7xyIEFjbWU=?=")
        #expect(MailComposer.encodeWord("Plain") == "Plain")
    }

    @Test("a message without HTML is a single text part")
    func textOnly() throws {
        let bytes = try MailComposer.compose(
            from: "a@example.com", fromName: nil, to: "b@example.org", subject: "S", text: "T", html: nil,
            date: Date(timeIntervalSince1970: 0), messageID: "m@example.com")
        let mail = String(decoding: bytes, as: UTF8.self)
        #expect(!mail.contains("multipart"))
        #expect(mail.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        #expect(mail.hasSuffix("\r\n\r\nT"))
    }
}
