import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct MessageLanguageTests {
    func bodies(_ harness: Harness, for id: String) throws -> [OutboxSender.Entry] {
        try OutboxSender.entries(path: harness.outbox).filter { $0.verificationId == id }
    }

    @Test(
        "a start's locale sets its messages' language, kept for resends on every store",
        arguments: StoreKind.allCases)
    func localeKept(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let start = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+15550100","locale":"de-CH"}"#)
            #expect(start.status == 201)
            let id = try #require(start.json["id"] as? String)
            #expect(try bodies(harness, for: id).last?.body.hasPrefix("Ihr OTPKit-Code lautet ") == true)
            harness.clock.advance(seconds: 31)
            #expect(
                try await harness.call("POST", "/v1/verifications/\(id)/resend", json: "{}").status == 200)
            let resent = try #require(try bodies(harness, for: id).last?.body)
            #expect(resent.hasPrefix("Ihr OTPKit-Code lautet "), "\(resent)")
            let plain = try await harness.start("+15550101")
            #expect(try bodies(harness, for: plain).last?.body.hasPrefix("Your OTPKit code is ") == true)
        }
    }

    @Test("Arabic and Japanese SMS fit one UCS-2 segment; an email in Japanese has its subject and body")
    func otherScripts() async throws {
        try await Harness.with { harness in
            for (locale, prefix) in [("ar", "رمز OTPKit هو "), ("ja", "OTPKitの確認コードは")] {
                let start = try await harness.call(
                    "POST", "/v1/verifications",
                    json: #"{"to":"+1555010\#(locale == "ar" ? 2 : 3)","locale":"\#(locale)"}"#)
                let id = try #require(start.json["id"] as? String)
                let body = try #require(try bodies(harness, for: id).last?.body)
                #expect(body.hasPrefix(prefix), "\(body)")
                #expect(SMSSegments.count(body) == 1)
            }
            let mail = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"ana@example.org","locale":"ja"}"#)
            let id = try #require(mail.json["id"] as? String)
            let entry = try #require(try bodies(harness, for: id).last)
            #expect(entry.body.contains("確認コードは"))
            let metrics = try await harness.call("GET", "/metrics", key: .some(nil))
            #expect(metrics.text.contains("otp_sms_segments_total 2"))
        }
    }

    @Test("an unknown locale is 400 invalid_request and sends nothing")
    func unknownLocale() async throws {
        try await Harness.with { harness in
            let response = try await harness.call(
                "POST", "/v1/verifications", json: #"{"to":"+15550100","locale":"fr"}"#)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_request")
            #expect(((try? OutboxSender.entries(path: harness.outbox)) ?? []).isEmpty)
        }
    }

    @Test(
        "templates are checked: unknown placeholders, {code} missing or in a subject, more than one segment")
    func templateProblems() {
        var policy = Policy()
        policy.templates = MessageTemplates(overrides: [
            .german: .init(sms: "Code {code} für {user}", emailSubject: "Code {code}", email: "Hallo")
        ])
        let problems = policy.problems().joined(separator: " | ")
        #expect(problems.contains("unknown placeholders: {user}"))
        #expect(problems.contains("email-subject.de template must not carry {code}"))
        #expect(problems.contains("the email.de template needs {code}"))
        var long = Policy()
        long.templates = MessageTemplates(overrides: [
            .japanese: .init(
                sms: String(repeating: "長", count: 70) + "{code}", emailSubject: "件名", email: "{code}")
        ])
        #expect(long.problems().contains { $0.contains("sms.ja template takes 2 SMS segments") })
        long.allowMultipartSMS = true
        #expect(!long.problems().contains { $0.contains("segments") })
        #expect(SMSSegments.count(String(repeating: "a", count: 160)) == 1)
        #expect(SMSSegments.count(String(repeating: "a", count: 161)) == 2)
        #expect(SMSSegments.count(String(repeating: "長", count: 70)) == 1)
        #expect(SMSSegments.count(String(repeating: "長", count: 71)) == 2)
        #expect(
            SMSSegments.count(String(repeating: "€", count: 80)) == 1, "extension characters take two septets"
        )
        #expect(SMSSegments.count(String(repeating: "€", count: 81)) == 2)
    }

    @Test("--template-dir overrides a language's texts; a bad template refuses to start with its name")
    func templateDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-tpl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "Dein {app} Code: {code} ({minutes} Min.)".write(
            to: directory.appendingPathComponent("sms.de.txt"), atomically: true, encoding: .utf8)
        let outbox = directory.appendingPathComponent("outbox.jsonl").path
        let serve = try ServeProcess([
            "serve", "--api-key", "tk-0123456789abcdefghijklmn", "--store", "memory", "--port", "0",
            "--sender", "outbox:\(outbox)",
            "--template-dir", directory.path, "--default-locale", "de",
        ])
        _ = await serve.waitForFirstLine()
        let port = try #require(serve.port)
        let response = try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/verifications",
            headers: [
                ("Authorization", "Bearer tk-0123456789abcdefghijklmn"), ("Content-Type", "application/json"),
            ],
            body: #"{"to":"+15550100"}"#)
        #expect(response.status == 201)
        _ = await serve.stop()
        let body = try #require(try OutboxSender.entries(path: outbox).last?.body)
        #expect(body.hasPrefix("Dein OTPKit Code: "), "\(body)")
        #expect(body.contains("(5 Min.)"))
        try "Code {code} für {user}".write(
            to: directory.appendingPathComponent("sms.de.txt"), atomically: true, encoding: .utf8)
        let bad = try ServeProcess([
            "serve", "--api-key", "tk-0123456789abcdefghijklmn", "--store", "memory", "--port", "0",
            "--sender", "console",
            "--template-dir", directory.path,
        ])
        let (status, _, stderr) = await bad.finish()
        #expect(status == 1)
        #expect(stderr.contains("sms.de template has unknown placeholders: {user}"))
        try "x".write(to: directory.appendingPathComponent("sms.fr.txt"), atomically: true, encoding: .utf8)
        let (usage, _, usageErrors) = await
            (try ServeProcess([
                "serve", "--api-key", "tk-0123456789abcdefghijklmn", "--sender", "console", "--template-dir",
                directory.path,
            ])).finish()
        #expect(usage == 2)
        #expect(usageErrors.contains("templates exist for en, de, ar and ja"))
    }
}
