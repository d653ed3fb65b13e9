import Foundation
import OTPCore
import OTPEngine
import OTPServe
import Testing

@testable import OTPHTTP
@testable import otp

/// `otp serve`'s configuration that cannot misroute: one sender per channel, a From address for
/// SMTP, long API keys, secrets from files, and a SIGHUP that swaps the key files in.
@Suite struct OperatorConfigTests {
    static let key = "k-0123456789abcdefghijklmn"

    func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeSettings {
        let options = try ParsedOptions.parse(arguments, specs: ServeOptions.all, environment: environment)
        return try ServeCommand.makeSettings(options, environment: environment).0
    }

    /// The usage error the options give, or `nil` when they are accepted.
    func refusal(_ arguments: [String], environment: [String: String] = [:]) -> String? {
        do {
            _ = try settings(arguments, environment: environment)
            return nil
        } catch let error as UsageError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// A file only its owner may read, as key files must be.
    static func ownerOnlyFile(_ path: String, _ text: String) throws {
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-ops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("senders are named per channel; each channel gets exactly the sender named for it")
    func sendersPerChannel() throws {
        let routes = try SenderSpec.routes(
            [
                try SenderSpec(argument: "sms=twilio"),
                try SenderSpec(argument: "email=smtp://mail.example.com"),
            ])
        #expect(routes == [.sms: .twilio, .email: .smtp(url: "smtp://mail.example.com")])
        // The unprefixed forms of one-channel senders stay unambiguous.
        #expect(
            try SenderSpec.routes([.twilio, .smtp(url: "smtp://m")]) == [
                .sms: .twilio, .email: .smtp(url: "smtp://m"),
            ])
        #expect(try SenderSpec.routes([.console]) == [.sms: .console, .email: .console])
        #expect(
            try SenderSpec.routes([.only(.sms, .outbox(path: "/a")), .only(.email, .outbox(path: "/b"))])
                == [.sms: .outbox(path: "/a"), .email: .outbox(path: "/b")])
        let accepted = try settings([
            "--api-key", Self.key, "--sender", "sms=outbox:/dev/null", "--sender", "email=smtp://mail",
            "--mail-from", "codes@example.org",
        ])
        #expect(accepted.mailFrom == "codes@example.org")
    }

    @Test(
        "two senders for one channel are refused with one line naming the channel",
        arguments: [
            (["smtp://mail", "outbox:/tmp/o"], "two senders for email (smtp and outbox)"),
            (["outbox:/tmp/o", "smtp://mail"], "two senders for email (outbox and smtp)"),
            (["console", "twilio"], "two senders for sms (console and twilio)"),
            (["sms=twilio", "sms=outbox:/tmp/o"], "two senders for sms (twilio and outbox)"),
            (
                ["webhook:https://h.example/x", "email=console"],
                "two senders for email (webhook and console)"
            ),
        ])
    func twoSendersForOneChannel(senders: [String], message: String) throws {
        let arguments =
            ["--api-key", Self.key, "--domain", "example.org"] + senders.flatMap { ["--sender", $0] }
        let refused = try #require(refusal(arguments, environment: ["OTP_WEBHOOK_SECRET": "s"]))
        #expect(refused.hasPrefix(message), "\(refused)")
        #expect(!refused.contains("\n"))
    }

    @Test("a sender named for a channel it cannot deliver is refused")
    func wrongChannel() {
        #expect(
            refusal(["--api-key", Self.key, "--sender", "sms=smtp://mail"])?.contains("cannot deliver sms")
                == true)
        #expect(
            refusal(["--api-key", Self.key, "--sender", "email=twilio"])?.contains("cannot deliver email")
                == true)
    }

    @Test(
        "SMTP without --mail-from or --domain is refused; either one, OTP_SMTP_FROM or a hosted page's host does"
    )
    func smtpNeedsFrom() throws {
        let base = ["--api-key", Self.key, "--sender", "smtp://mail"]
        let refused = try #require(refusal(base))
        #expect(refused.contains("--mail-from") && refused.contains("--domain"))
        #expect(refusal(base + ["--mail-from", "codes@example.org"]) == nil)
        #expect(refusal(base + ["--domain", "example.org"]) == nil)
        #expect(refusal(base, environment: ["OTP_SMTP_FROM": "codes@example.org"]) == nil)
        #expect(
            refusal(
                base + [
                    "--public-url", "https://verify.example", "--hosted-return-origins",
                    "https://app.example",
                ])
                == nil)
        // The assembly refuses it too, for settings made without the options.
        #expect(throws: ServerStartError.self) {
            try ServeAssembly.senders(for: ServeSettings(senders: [.smtp(url: "smtp://mail")]))
        }
    }

    @Test("an API key shorter than 24 characters is refused from the command line, the environment or a file")
    func shortKeys() throws {
        let short = "abc"
        let line = try #require(refusal(["--api-key", short, "--sender", "console"]))
        #expect(line.contains("fewer than 24"))
        #expect(!line.contains(short), "the key itself is never shown")
        #expect(
            refusal(["--sender", "console"], environment: ["OTP_API_KEYS": "\(Self.key),short-key"]) != nil)
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("keys").path
        try Self.ownerOnlyFile(file, "\(Self.key)\n12345678901234567890123\n")
        #expect(refusal(["--api-key-file", file, "--sender", "console"])?.contains("fewer than 24") == true)
        try Self.ownerOnlyFile(file, "\(Self.key)\n123456789012345678901234\n")
        #expect(refusal(["--api-key-file", file, "--sender", "console"]) == nil)
        #expect(refusal(["--dev"]) == nil, "the --dev key is long enough")
    }

    @Test("every provider secret can come from NAME_FILE; both forms, an empty or open file are refused")
    func secretFiles() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ServeSecrets.names {
            let path = directory.appendingPathComponent(name).path
            try Self.ownerOnlyFile(path, "secret-of-\(name)\n")
            let resolved = try ServeSecrets.resolve([name + "_FILE": path])
            #expect(resolved[name] == "secret-of-\(name)", "\(name)")
        }
        #expect(
            Set(ServeSecrets.names).isSuperset(of: [
                "OTP_TWILIO_AUTH_TOKEN", "OTP_SMTP_PASSWORD", "OTP_WEBHOOK_SECRET", "OTP_START_GUARD_SECRET",
                "OTP_EVENTS_SECRET", "OTP_STORE_PASSWORD",
            ]))
        let token = directory.appendingPathComponent("token").path
        try Self.ownerOnlyFile(token, "twilio-token\n")
        let settings = try settings(
            ["--api-key", Self.key, "--sender", "twilio"],
            environment: [
                "OTP_TWILIO_ACCOUNT_SID": "AC1", "OTP_TWILIO_AUTH_TOKEN_FILE": token,
                "OTP_TWILIO_FROM": "+15550100",
            ])
        #expect(settings.environment["OTP_TWILIO_AUTH_TOKEN"] == "twilio-token")
        #expect(throws: UsageError.self) {
            try ServeSecrets.resolve(["OTP_SMTP_PASSWORD": "x", "OTP_SMTP_PASSWORD_FILE": token])
        }
        let empty = directory.appendingPathComponent("empty").path
        try Self.ownerOnlyFile(empty, "\n")
        #expect(throws: UsageError.self) { try ServeSecrets.resolve(["OTP_EVENTS_SECRET_FILE": empty]) }
        let open = directory.appendingPathComponent("open").path
        _ = FileManager.default.createFile(
            atPath: open, contents: Data("s\n".utf8), attributes: [.posixPermissions: 0o644])
        let error = #expect(throws: UsageError.self) {
            try ServeSecrets.resolve(["OTP_WEBHOOK_SECRET_FILE": open])
        }
        #expect(error?.message.contains("chmod 600") == true)
        #expect(throws: UsageError.self) {
            try ServeSecrets.resolve([
                "OTP_WEBHOOK_SECRET_FILE": directory.appendingPathComponent("none").path
            ])
        }
    }

    @Test("--log-level sets the log's least level; another word is refused")
    func logLevelOption() throws {
        #expect(try settings(["--dev"]).server.requestLog.minimumLevel == .info)
        #expect(try settings(["--dev", "--log-level", "debug"]).server.requestLog.minimumLevel == .debug)
        #expect(
            try settings(["--dev"], environment: ["OTP_LOG_LEVEL": "error"]).server.requestLog.minimumLevel
                == .error)
        #expect(refusal(["--dev", "--log-level", "verbose"])?.contains("--log-level must be") == true)
    }

    @Test(
        "a reload swaps the API keys, publishable keys and test destinations; a bad file keeps the old ones")
    func reload() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("keys").path
        let publishable = directory.appendingPathComponent("publishable").path
        let tests = directory.appendingPathComponent("tests").path
        let oldKey = "old-key-0123456789abcdefghij"
        let newKey = "new-key-0123456789abcdefghij"
        try Self.ownerOnlyFile(keys, oldKey + "\n")
        try Self.ownerOnlyFile(publishable, "ios=pk_ios_0123456789abcdefghijk\n")
        try Self.ownerOnlyFile(tests, "+15555550100=111111\n")
        let options = try ParsedOptions.parse(
            [
                "--api-key-file", keys, "--publishable-key-file", publishable, "--test-destination-file",
                tests,
                "--store", "memory", "--port", "0", "--sender", "outbox:/dev/null",
            ], specs: ServeOptions.all, environment: [:])
        let lines = Locked<[String]>([])
        let log = RequestLog(now: { Date() }, write: { line in lines.withLock { $0.append(line) } })
        let prepared = try ServeCommand.prepare(options, environment: [:], log: log)
        let server = try await ServeAssembly.start(prepared.settings)

        func status(_ key: String) async throws -> Int {
            try await RawHTTP.request(
                port: server.port, method: "GET", path: "/v1/verifications/vf_missing",
                headers: [("Authorization", "Bearer \(key)")]
            ).status
        }
        #expect(try await status(oldKey) == 404)
        #expect(try await status(newKey) == 401)
        #expect(server.verifier.testCode(for: "+15555550100") == "111111")

        try Self.ownerOnlyFile(keys, newKey + "\n")
        try Self.ownerOnlyFile(
            publishable, "ios=pk_ios_0123456789abcdefghijk\nweb=pk_web_0123456789abcdefghijk\n")
        try Self.ownerOnlyFile(tests, "+15555550199=222222\n")
        #expect(ServeCommand.reload(prepared.keys, into: server, log: log))
        #expect(try await status(oldKey) == 401)
        #expect(try await status(newKey) == 404)
        #expect(try await status("pk_web_0123456789abcdefghijk") == 404, "the new publishable key works")
        #expect(server.verifier.testCode(for: "+15555550100") == nil)
        #expect(server.verifier.testCode(for: "+15555550199") == "222222")
        // Request lines come in as their answers finish; the reload's own line is the one of SIGHUP.
        func reloadLines() -> [String] { lines.withLock { $0 }.filter { $0.contains("SIGHUP") } }
        let reloaded = try #require(reloadLines().last)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(reloaded.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["publishableKeys"] as? String == "2")
        #expect(!reloaded.contains(newKey))

        // A short key in the file: nothing changes, and the log says why.
        try Self.ownerOnlyFile(keys, "short\n")
        #expect(!ServeCommand.reload(prepared.keys, into: server, log: log))
        #expect(try await status(newKey) == 404)
        #expect(server.verifier.testCode(for: "+15555550199") == "222222")
        let failed = try #require(reloadLines().last)
        #expect(failed.contains(#""level":"error""#))
        #expect(failed.contains("fewer than 24"))
        #expect(!failed.contains("short\\n"))
        await server.stop()
    }

    @Test("signals are taken one at a time in the order they came")
    func signalsInOrder() async {
        let waiter = SignalWaiter(signals: [])
        waiter.deliver(SIGHUP)
        waiter.deliver(SIGHUP)
        waiter.deliver(SIGTERM)
        #expect(await waiter.next() == SIGHUP)
        #expect(await waiter.next() == SIGHUP)
        #expect(await waiter.next() == SIGTERM)
    }
}

@Suite struct LogLineTests {
    @Test(
        "every line is one JSON object with time, level and message; lines below the least level are dropped")
    func shapeAndLevels() throws {
        let lines = Locked<[String]>([])
        var log = RequestLog(
            now: { Date(timeIntervalSince1970: 0) }, write: { line in lines.withLock { $0.append(line) } })
        log.minimumLevel = .warning
        log.log(.debug, "debug line")
        log.log(.info, "info line")
        log.log(.warning, "warning line", ["cause": "x\"y"])
        log.log(.error, "error line")
        log.record(
            CompletedRequest(
                method: "GET", route: "/healthz", status: 200, duration: .milliseconds(1), note: nil,
                completed: true))
        log.record(
            CompletedRequest(
                method: "POST", route: "/v1/verifications", status: 503, duration: .milliseconds(1),
                note: nil,
                completed: true))
        let written = lines.withLock { $0 }
        #expect(written.count == 3, "\(written)")
        let objects = try written.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["level"] as? String } == ["warning", "error", "error"])
        #expect(
            objects.map { $0["message"] as? String } == [
                "warning line", "error line", "POST /v1/verifications 503",
            ])
        #expect(objects.allSatisfy { $0["time"] as? String == "1970-01-01T00:00:00.000Z" })
        #expect(objects[0]["cause"] as? String == "x\"y")
        // A 5xx request line is an error, so it passes a warning level; a 200 is info and does not.
        #expect(!log.writes(.info))
        #expect(
            RequestLog.line(.info, "m", [("level", "x")], at: Date(timeIntervalSince1970: 0)).contains(
                #""level":"info","message":"m"}"#))
    }

    @Test("the levels order debug < info < warning < error, named as --log-level names them")
    func levels() {
        #expect(LogLevel.allCases.map(\.name) == ["debug", "info", "warning", "error"])
        #expect(LogLevel.allCases.sorted() == LogLevel.allCases)
        #expect(LogLevel(name: "warning") == .warning)
        #expect(LogLevel(name: "WARN") == nil)
    }

    @Test(
        "a failed send is logged with the provider's status, the masked destination and the verification, never the code"
    )
    func failedSendCause() async throws {
        let provider = try ProviderStub()
        provider.failing = true
        try await Harness.with(
            senders: [.webhook(url: "http://127.0.0.1:\(provider.port)/hook")],
            environment: ["OTP_WEBHOOK_SECRET": "s"]
        ) { harness in
            let answer = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550143"}"#)
            #expect(answer.status == 502)
            let lines = harness.log.all.filter { $0.contains("a code could not be sent") }
            #expect(lines.count == 1)
            let line = try #require(lines.first)
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["level"] as? String == "warning")
            #expect(object["channel"] as? String == "sms")
            #expect(object["providerStatus"] as? String == "500")
            #expect((object["error"] as? String)?.contains("answered 500") == true)
            #expect((object["verification"] as? String)?.hasPrefix("vf_") == true)
            #expect((object["to"] as? String)?.hasSuffix("0143") == true)
            #expect(!line.contains("5550143"), "never the whole number")
        }
        await provider.stop()
    }

    /// Waits for a log line containing `text`: it returns as soon as the line is written, and gives
    /// up after 20 s, which only a starved parallel run comes near.
    static func line(containing text: String, in log: LogLines) async throws -> String? {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let line = log.all.first(where: { $0.contains(text) }) { return line }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test(
        "each failed event delivery attempt is logged with the endpoint's status and the event, never the destination"
    )
    func eventAttempts() async throws {
        let receiver = try ProviderStub()
        receiver.failing = true
        try await EventWebhookTests.with(.memory, receiver: receiver) { harness in
            _ = try await harness.start("+12025550177")
            let line = try #require(
                try await Self.line(containing: "an event delivery attempt failed", in: harness.log))
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["level"] as? String == "warning")
            #expect(object["event"] as? String == "pending")
            #expect(object["status"] as? String == "500")
            #expect((object["verification"] as? String)?.hasPrefix("vf_") == true)
            #expect(!line.contains("5550177"))
        }
        await receiver.stop()
    }

    @Test("the start guard's outcome is logged: refused with its reason, unavailable with its cause")
    func guardOutcome() async throws {
        for (verdict, level, outcome) in [
            (StartGuardVerdict.refuse(reason: "too many"), "info", "refused"),
            (.unavailable("connection refused"), "warning", "unavailable_closed"),
        ] {
            let guardSettings = StartGuardSettings(
                guardian: FixedGuard(verdict: verdict), failOpen: false, appliesToSecretKeys: true)
            try await Harness.with(startGuard: guardSettings) { harness in
                _ = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550178"}"#)
                let line = try #require(try await Self.line(containing: "the start guard", in: harness.log))
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["level"] as? String == level)
                #expect(object["outcome"] as? String == outcome)
                #expect(line.contains("too many") || line.contains("connection refused"))
                #expect((object["requestId"] as? String)?.isEmpty == false, "the request's id is on the line")
                #expect(!line.contains("5550178"))
            }
        }
    }
}

/// A start guard that always gives the same verdict.
struct FixedGuard: StartGuard {
    let verdict: StartGuardVerdict

    func judge(_ start: GuardedStart) async -> StartGuardVerdict { verdict }
}

/// The start line: once on standard output for scripts, once in the log, and once in all where
/// the two are one stream.
@Suite struct StartLineTests {
    static let arguments = [
        "serve", "--api-key", "tk-0123456789abcdefghijklmn", "--store", "memory", "--port", "0", "--sender",
        "console",
    ]

    static func count(_ text: String) -> Int {
        text.split(separator: "\n").filter { $0.contains("listening on http://") }.count
    }

    @Test("apart, the start line is on standard output and in the log")
    func apart() async throws {
        let serve = try ServeProcess(Self.arguments)
        let first = await serve.waitForFirstLine()
        #expect(Self.count(first) == 1)
        let (_, stdout, stderr) = await serve.stop()
        #expect(Self.count(first + stdout) == 1)
        #expect(Self.count(stderr) == 1)
    }

    @Test("one stream (a terminal, 2>&1) shows the start line once")
    func oneStream() async throws {
        let serve = try ServeProcess(Self.arguments, oneStream: true)
        var seen = await serve.waitForFirstLine()
        // The start line comes after the warnings: wait for it before stopping the server.
        while Self.count(seen) == 0, let more = await serve.nextOutput() { seen += more }
        let (_, rest, _) = await serve.stop()
        seen += rest
        #expect(Self.count(seen) == 1, "\(seen)")
        #expect(seen.contains("\"level\":\"warning\""))
    }
}
