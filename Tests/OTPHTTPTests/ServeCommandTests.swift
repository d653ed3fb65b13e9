import Foundation
import OTPEngine
import Testing

@Suite struct ServeCommandTests {
    static let options = [
        "host", "port", "api-key", "dev", "store", "sender", "app-name", "domain", "android-app-hash",
        "code-length",
        "max-attempts", "code-lifetime", "resend-cooldowns", "max-sends", "limit-starts-per-destination",
        "limit-starts-per-address", "limit-checks-per-address", "limit-failed-checks-per-destination",
        "trust-proxy",
        "secret-file", "check-floor", "store-password-file", "redis-wait-replicas", "allow-volatile-factors",
    ]

    /// Waits for a server to listen, then starts a verification on it with an API key.
    static func start(on serve: ServeProcess, key: String) async throws -> RawResponse {
        _ = await serve.waitForFirstLine()
        let port = try #require(serve.port)
        return try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/verifications",
            headers: [("Authorization", "Bearer \(key)")],
            body: #"{"to":"+12025550100"}"#)
    }

    @Test("--help lists every option with its default and environment variable")
    func help() async throws {
        let serve = try ServeProcess(["serve", "--help"])
        let (status, output, _) = await serve.finish()
        #expect(status == 0)
        for name in Self.options {
            #expect(output.contains("--\(name)"), "--\(name) is missing from --help")
            let variable = "OTP_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
            #expect(output.contains(variable), "\(variable) is missing from --help")
        }
        #expect(output.contains("default: 127.0.0.1"))
        #expect(output.contains("default: 30,60,120,300"))
        #expect(output.contains("default: sqlite:otp.sqlite3"))
        #expect(output.contains("default: 50;"))
    }

    @Test(
        "an unknown or malformed option exits 2 with one line on stderr",
        arguments: [
            ["--bogus"], ["--port", "http"], ["--port", "70000"], ["--port"], ["--code-length", "12"],
            ["--resend-cooldowns", "30,x"], ["--limit-checks-per-address", "60"],
            ["--limit-starts-per-address", "0/60"],
            ["--store", "postgres://x"], ["--sender", "pigeon"], ["--dev=yes"],
            ["--metrics-address", "nowhere"], ["--check-floor", "-1"], ["--check-floor", "5001"],
            ["--check-floor", "50ms"], ["--resend-cooldowns", "9999999999999999"],
            ["--resend-cooldowns", "31536001"], ["--max-attempts", "1000001"],
            ["--code-lifetime", "31536001"],
            ["--limit-checks-per-address", "1/31536001"], ["--limit-starts-per-address", "1000000001/60"],
            ["--global-sends-per-hour", "2147483648"], ["--max-sends", "99999999999999999999"],
            ["extra"], [], ["--public-url", "https://verify.example"],
            ["--hosted-return-origins", "https://app.example"], ["--signing-key-file", "k.key"],
            ["--publishable-key", "ios=sk_live_0123456789abcdefghij"],
            ["--publishable-key", "i os=pk_0123456789abcdefghijk"],
            ["--start-guard", "https://guard.example"], ["--start-guard-failure", "maybe"],
            ["--sender", "twilio"], ["--sender", "email=outbox:/tmp/o"], ["--sender", "sms=smtp://mail"],
            ["--api-key", "short-key"], ["--log-level", "loud"], ["--mail-from", "a@b", "--sender", "bogus"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let needsKey =
            arguments.isEmpty ? [] : ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]
        let serve = try ServeProcess(["serve"] + needsKey + arguments)
        let (status, stdout, stderr) = await serve.finish()
        #expect(status == 2)
        #expect(stdout.isEmpty)
        #expect(stderr.hasPrefix("otp serve: "))
        #expect(stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test(
        "a malformed environment value exits 2 too, naming the variable it came from",
        arguments: [
            ("OTP_MAX_SENDS", "many", "OTP_MAX_SENDS (--max-sends) must be"),
            ("OTP_TRUST_PROXY", "maybe", "OTP_TRUST_PROXY (--trust-proxy) must be a whole number"),
            ("OTP_CODE_LIFETIME", "5m", "OTP_CODE_LIFETIME (--code-lifetime) must be a whole number"),
            ("OTP_PORT", "", "OTP_PORT (--port) is set but empty"),
            ("OTP_LOG_LEVEL", "WARN", "OTP_LOG_LEVEL (--log-level) must be debug, info, warning or error"),
            ("OTP_SENDER", "pigeon", "OTP_SENDER (--sender): the sender is"),
        ])
    func environmentErrors(variable: String, value: String, named: String) async throws {
        let serve = try ServeProcess(["serve", "--dev"], environment: [variable: value])
        let (status, _, stderr) = await serve.finish()
        #expect(status == 2)
        #expect(stderr.contains(named))
    }

    @Test(
        "serve prints exactly one line when ready, answers, and stops gracefully on SIGTERM and SIGINT",
        arguments: [SIGTERM, SIGINT])
    func lifecycle(signal: Int32) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("otp.sqlite3").path
        let serve = try ServeProcess([
            "serve", "--port", "0", "--api-key", "serve-key-0123456789abcdefghijklmn", "--store",
            "sqlite:\(database)",
            "--sender", "outbox:\(directory.appendingPathComponent("outbox.jsonl").path)",
        ])
        let line = await serve.waitForFirstLine()
        let port = try #require(serve.port)
        #expect(line.hasSuffix("}\n") && line.filter { $0 == "\n" }.count == 1)
        #expect(ServeLog.listeningURL(line) == "http://127.0.0.1:\(port)")
        #expect(ServeLog.objects(line).first?["level"] as? String == "info")
        let response = try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/verifications",
            headers: [("Authorization", "Bearer serve-key-0123456789abcdefghijklmn")],
            body: #"{"to":"+12025550100"}"#)
        #expect(response.status == 201)
        let (status, stdout, stderr) = await serve.stop(signal: signal)
        #expect(status == 0)
        #expect(stdout.isEmpty)
        #expect(stderr.contains(#""route":"/v1/verifications","status":201"#))
        #expect(!stderr.contains("5550100"))
        #expect(stderr.contains("the outbox sender writes codes to"), "an outbox is not a real sender")
        let secret = try FileManager.default.attributesOfItem(atPath: database + ".secret")
        #expect((secret[.posixPermissions] as? Int) == 0o600)
        #expect((secret[.size] as? Int) == 32)
    }

    @Test("options come from OTP_ environment variables, and the command line wins")
    func environment() async throws {
        let serve = try ServeProcess(
            ["serve", "--port", "0", "--store", "memory", "--code-length", "7"],
            environment: [
                "OTP_API_KEYS": "env-key-1-0123456789abcdefghijklmn,env-key-2-0123456789abcdefghijklmn",
                "OTP_SENDER": "console", "OTP_CODE_LENGTH": "8",
                "OTP_MAX_ATTEMPTS": "5",
            ])
        let response = try await Self.start(on: serve, key: "env-key-2-0123456789abcdefghijklmn")
        #expect(response.status == 201)
        #expect(response.json["codeLength"] as? Int == 7)
        #expect(response.json["attemptsLeft"] as? Int == 5)
        let (status, _, _) = await serve.stop()
        #expect(status == 0)
    }

    @Test("--dev prints a working key on stderr; weak settings start with a warning")
    func devAndWarnings() async throws {
        let serve = try ServeProcess([
            "serve", "--dev", "--port", "0", "--store", "memory", "--max-attempts", "50",
        ])
        _ = await serve.waitForFirstLine()
        let port = try #require(serve.port)
        let (_, _, stderr) = await serve.stop()
        let key = try #require(stderr.split(separator: " ").first { $0.hasPrefix("dev_") })
        #expect(key.count == 36)
        #expect(ServeLog.summaries(stderr).contains { $0.hasPrefix("warning: maxAttempts is 50") })
        #expect(stderr.contains("console sender prints codes"))
        #expect(port > 0)
    }

    @Test(
        "a key on the command line is warned about; --api-key-file works without the warning; the key file's place is said"
    )
    func keyWarnings() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("otp.sqlite3").path
        let argv = try ServeProcess([
            "serve", "--port", "0", "--api-key", "argv-key-0123456789abcdefghijklmn", "--sender", "console",
            "--store",
            "sqlite:\(database)",
        ])
        _ = await argv.waitForFirstLine()
        let (_, _, argvErrors) = await argv.stop()
        #expect(argvErrors.contains("visible in the process list"))
        #expect(argvErrors.contains("\(database).secret, beside the database"))

        let keyFile = directory.appendingPathComponent("keys").path
        try "# keys\nfile-key-1-0123456789abcdefghijklmn\n\nfile-key-2-0123456789abcdefghijklmn\n".write(
            toFile: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile)
        let fromFile = try ServeProcess([
            "serve", "--port", "0", "--api-key-file", keyFile, "--sender", "console", "--store", "memory",
        ])
        let response = try await Self.start(on: fromFile, key: "file-key-2-0123456789abcdefghijklmn")
        #expect(response.status == 201)
        let (_, _, fileErrors) = await fromFile.stop()
        #expect(!fileErrors.contains("process list"))
        #expect(!fileErrors.contains("beside the database"))

        let missing = try ServeProcess([
            "serve", "--api-key-file", directory.appendingPathComponent("none").path,
        ])
        let (status, _, missingErrors) = await missing.finish()
        #expect(status == 2)
        #expect(missingErrors.contains("--api-key-file"))
        #expect(
            missingErrors.contains("No such file or directory"), "the system's reason, not only its number")
    }

    @Test("an API key file or publishable key file others can read is refused, naming chmod 600")
    func keyFileModes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("keys").path
        _ = FileManager.default.createFile(
            atPath: keyFile, contents: Data("open-key\n".utf8), attributes: [.posixPermissions: 0o644])
        let open = try ServeProcess(["serve", "--port", "0", "--api-key-file", keyFile, "--store", "memory"])
        let (status, _, errors) = await open.finish()
        #expect(status == 2)
        #expect(errors.contains("--api-key-file"))
        #expect(errors.contains("chmod 600 \(keyFile)"))
        #expect(!errors.contains("open-key"), "the key itself is never shown")
        let publishable = directory.appendingPathComponent("publishable").path
        _ = FileManager.default.createFile(
            atPath: publishable, contents: Data("ios=pk_ios_0123456789abcdefghijk\n".utf8),
            attributes: [.posixPermissions: 0o660])
        let group = try ServeProcess([
            "serve", "--port", "0", "--api-key", "k-0123456789abcdefghijklmn", "--publishable-key-file",
            publishable, "--store",
            "memory", "--sender", "outbox:" + directory.appendingPathComponent("outbox.jsonl").path,
        ])
        let (groupStatus, _, groupErrors) = await group.finish()
        #expect(groupStatus == 2)
        #expect(groupErrors.contains("--publishable-key-file"))
        #expect(groupErrors.contains("chmod 600"))
        guard getuid() == 0 else { return }
        // A key file root owns that its group may read, as Kubernetes mounts a secret: taken.
        let mountedFile = directory.appendingPathComponent("mounted-keys").path
        _ = FileManager.default.createFile(
            atPath: mountedFile, contents: Data("k-0123456789abcdefghijklmn\n".utf8),
            attributes: [.posixPermissions: 0o640])
        let mounted = try ServeProcess([
            "serve", "--port", "0", "--api-key-file", mountedFile, "--store", "memory", "--sender",
            "outbox:" + directory.appendingPathComponent("mounted.jsonl").path,
        ])
        let line = await mounted.waitForFirstLine()
        #expect(line.contains("listening on http://"), "\(line)")
        let (_, _, mountedErrors) = await mounted.stop()
        #expect(!mountedErrors.contains("chmod"))
    }

    @Test("an existing SQLite database others can read is set to 0600, with a warning")
    func databaseMode() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("otp.sqlite3").path
        _ = FileManager.default.createFile(
            atPath: database, contents: Data(), attributes: [.posixPermissions: 0o644])
        let serve = try ServeProcess([
            "serve", "--port", "0", "--api-key-file", try Self.keyFile(in: directory), "--sender", "console",
            "--store", "sqlite:\(database)",
        ])
        _ = await serve.waitForFirstLine()
        let (_, _, errors) = await serve.stop()
        #expect(
            errors.contains("the SQLite file \(database) had mode 644, readable by others; it is now 600"))
        let mode = try FileManager.default.attributesOfItem(atPath: database)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// An owner-only file holding one API key.
    static func keyFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("api-keys").path
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("mode-test-key-0123456789abcdefghijklmn\n".utf8),
            attributes: [.posixPermissions: 0o600])
        return path
    }

    @Test("a webhook or Twilio base URL over plain http to another machine refuses to start")
    func plainHTTPProviders() async throws {
        let webhook = try ServeProcess(
            ["serve", "--sender", "webhook:http://hooks.example.com/otp", "--store", "memory"],
            environment: ["OTP_WEBHOOK_SECRET": "s", "OTP_API_KEYS": "k-0123456789abcdefghijklmn"])
        let (webhookStatus, _, webhookErrors) = await webhook.finish()
        #expect(webhookStatus == 1)
        #expect(webhookErrors.contains("a webhook URL must be https://"))
        let twilio = try ServeProcess(
            ["serve", "--sender", "twilio", "--store", "memory"],
            environment: [
                "OTP_API_KEYS": "k-0123456789abcdefghijklmn", "OTP_TWILIO_ACCOUNT_SID": "AC1",
                "OTP_TWILIO_AUTH_TOKEN": "t",
                "OTP_TWILIO_FROM": "+12015550100", "OTP_TWILIO_BASE_URL": "http://api.example.com",
            ])
        let (twilioStatus, _, twilioErrors) = await twilio.finish()
        #expect(twilioStatus == 1)
        #expect(twilioErrors.contains("OTP_TWILIO_BASE_URL must be https://"))
    }

    @Test("a server that cannot start exits 1 with the reason")
    func cannotStart() async throws {
        let serve = try ServeProcess([
            "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--store",
            "redis://127.0.0.1:1",
        ])
        let (status, stdout, stderr) = await serve.finish()
        #expect(status == 1)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("secret-file"))
    }

    @Test(
        "the hosted page's settings are checked at start: bad origins, a public URL with a path, a key file others read"
    )
    func hostedSettings() async throws {
        let base = [
            "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--store", "memory",
            "--port", "0",
        ]
        for (extra, reason) in [
            (
                ["--public-url", "http://verify.example", "--hosted-return-origins", "https://app.example"],
                "--public-url must be an https:// address"
            ),
            (
                [
                    "--public-url", "https://verify.example/x", "--hosted-return-origins",
                    "https://app.example",
                ], "--public-url must be an origin without a path"
            ),
            (
                [
                    "--public-url", "https://verify.example", "--hosted-return-origins",
                    "https://app.example/p",
                ],
                "--hosted-return-origins takes exact origins"
            ),
        ] {
            let (status, _, stderr) = await (try ServeProcess(base + extra)).finish()
            #expect(status == 1, "\(extra)")
            #expect(stderr.contains(reason), "\(stderr)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-sign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("signing.key").path
        _ = FileManager.default.createFile(
            atPath: keyFile, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o644])
        let (status, _, stderr) = await
            (try ServeProcess(
                base + [
                    "--public-url", "https://verify.example", "--hosted-return-origins",
                    "https://app.example",
                    "--signing-key-file", keyFile,
                ])).finish()
        #expect(status == 1)
        #expect(stderr.contains("chmod"), "\(stderr)")
        #expect(!stderr.contains("0707070707"), "never the key")
    }

    @Test("a start guard without its signing secret refuses to start, naming OTP_START_GUARD_SECRET")
    func startGuardSecret() async throws {
        let serve = try ServeProcess([
            "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--store", "memory",
            "--port", "0",
            "--start-guard", "webhook:https://guard.example/judge",
        ])
        let (status, _, stderr) = await serve.finish()
        #expect(status == 1)
        #expect(stderr.contains("OTP_START_GUARD_SECRET"))
    }
}
