import Foundation
import OTPTestSupport
import Testing

/// `otp serve` on Redis in production: the password kept out of the process list, a start that
/// cannot work refused with one line, outages logged once.
@Suite struct ServeRedisTests {
    /// The options every run here shares, on the Redis at `port` (`redis://127.0.0.1:PORT`).
    static func serve(
        port: Int, _ extra: [String], url: String? = nil, environment: [String: String] = [:]
    ) throws -> ServeProcess {
        let directory = try temporaryDirectory()
        return try ServeProcess(
            [
                "serve", "--port", "0", "--api-key", "redis-key-0123456789abcdefghijklmn", "--sender",
                "outbox:/dev/null", "--store",
                url ?? "redis://127.0.0.1:\(port)/0", "--secret-file",
                directory.appendingPathComponent("secret").path,
            ] + extra, environment: environment)
    }

    /// A password file of `mode` holding `password` and a newline.
    static func passwordFile(_ password: String, mode: Int) throws -> String {
        let path = try temporaryDirectory().appendingPathComponent("redis-password").path
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("\(password)\n".utf8), attributes: [.posixPermissions: mode])
        return path
    }

    /// The lines of standard error as `LEVEL: MESSAGE`, without the warning every run here gets and
    /// without request lines.
    static func lines(_ stderr: String) -> [String] {
        ServeLog.objects(stderr).filter { $0["method"] == nil }.map { object in
            "\(object["level"] as? String ?? "?"): \(object["message"] as? String ?? "\(object)")"
        }.filter { !$0.contains("API key on the command line") && !$0.contains("listening on") }
    }

    @Test("a Redis that needs a password and gets none: exit 1 with one line naming where the password goes")
    func noPassword() async throws {
        let redis = try RedisProcess(arguments: ["--requirepass", "right-password"])
        defer { redis.stop() }
        let (status, stdout, stderr) = try await Self.serve(port: redis.port, ["--allow-volatile-factors"])
            .finish()
        #expect(status == 1)
        #expect(stdout.isEmpty)
        #expect(
            Self.lines(stderr) == [
                "error: cannot use the Redis store at 127.0.0.1:\(redis.port)/0: the server requires a password "
                    + "(NOAUTH Authentication required.); give the password with --store-password-file PATH or "
                    + "OTP_STORE_PASSWORD"
            ])

        let wrong = try await Self.serve(
            port: redis.port, ["--allow-volatile-factors"], environment: ["OTP_STORE_PASSWORD": "wrong-guess"]
        ).finish()
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("AUTH was refused (WRONGPASS"))
        #expect(wrong.stderr.contains("check --store-password-file or OTP_STORE_PASSWORD"))
        #expect(!wrong.stderr.contains("wrong-guess"))
    }

    @Test("the password comes from an owner-only --store-password-file or OTP_STORE_PASSWORD")
    func passwordFromFileOrEnvironment() async throws {
        let redis = try RedisProcess(arguments: ["--requirepass", "right-password"])
        defer { redis.stop() }
        let file = try Self.passwordFile("right-password", mode: 0o600)
        for run in [
            try Self.serve(port: redis.port, ["--allow-volatile-factors", "--store-password-file", file]),
            try Self.serve(
                port: redis.port, ["--allow-volatile-factors"],
                environment: ["OTP_STORE_PASSWORD": "right-password"]),
        ] {
            #expect(ServeLog.listeningURL(await run.waitForFirstLine()) != nil)
            let (_, _, stderr) = await run.stop()
            #expect(!stderr.contains("password"))
        }

        let empty = try Self.passwordFile("", mode: 0o600)
        let nothing = try await Self.serve(
            port: redis.port, ["--allow-volatile-factors", "--store-password-file", empty]
        ).finish()
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains("--store-password-file: \(empty) is empty"))

        let open = try Self.passwordFile("right-password", mode: 0o644)
        let refused = try await Self.serve(
            port: redis.port, ["--allow-volatile-factors", "--store-password-file", open]
        ).finish()
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("chmod 600 \(open)"))
    }

    @Test("a password in the --store URL works, with one warning that it shows in the process list")
    func passwordInURL() async throws {
        let redis = try RedisProcess(arguments: ["--requirepass", "right-password"])
        defer { redis.stop() }
        let run = try Self.serve(
            port: redis.port, ["--allow-volatile-factors"],
            url: "redis://:right-password@127.0.0.1:\(redis.port)/0")
        #expect(ServeLog.listeningURL(await run.waitForFirstLine()) != nil)
        let (_, _, stderr) = await run.stop()
        let warnings = Self.lines(stderr).filter { $0.contains("--store URL holds a password") }
        #expect(
            warnings == [
                "warning: the --store URL holds a password, visible in the process list: use "
                    + "--store-password-file or OTP_STORE_PASSWORD"
            ])
    }

    @Test("no sentinel that answers: exit 1 with one line naming each sentinel's refusal")
    func noSentinel() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let (status, stdout, stderr) = try await Self.serve(
            port: 0, ["--allow-volatile-factors"], url: "redis-sentinel://127.0.0.1:\(port)/otp/0"
        ).finish()
        #expect(status == 1)
        #expect(stdout.isEmpty)
        #expect(
            Self.lines(stderr) == [
                "error: cannot use the Redis store otp/0 through Sentinel: no sentinel named the primary otp "
                    + "(127.0.0.1:\(port): Connection refused)"
            ])
    }

    @Test("store options for a store that is not Redis are refused")
    func notRedis() async throws {
        let file = try Self.passwordFile("pw", mode: 0o600)
        for (extra, reason) in [
            (
                ["--store-password-file", file],
                "--store-password-file and OTP_STORE_PASSWORD are for a Redis or PostgreSQL store"
            ),
            (["--redis-wait-replicas", "1"], "--redis-wait-replicas is for a Redis store"),
            (
                ["--store", "redis://app@127.0.0.1:1"],
                "the Redis user in --store needs a password: give --store-password-file PATH or OTP_STORE_PASSWORD"
            ),
        ] {
            let run = try ServeProcess(
                [
                    "serve", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--store",
                    "memory",
                ] + extra)
            let (status, _, stderr) = await run.finish()
            #expect(status == 2)
            #expect(stderr.contains(reason))
        }
    }

    @Test(
        "a Redis that keeps nothing across a restart is refused for factors unless --allow-volatile-factors")
    func volatile() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let (status, stdout, stderr) = try await Self.serve(port: redis.port, []).finish()
        #expect(status == 1)
        #expect(stdout.isEmpty)
        #expect(
            Self.lines(stderr) == [
                "error: the Redis store keeps nothing across a restart (appendonly no, save \"\"), so it would "
                    + "forget every authenticator factor: turn on appendonly or save, or start with --allow-volatile-factors"
            ])

        let saving = try RedisProcess(arguments: ["--save", "3600 1"])
        defer { saving.stop() }
        let run = try Self.serve(port: saving.port, [])
        #expect(ServeLog.listeningURL(await run.waitForFirstLine()) != nil)
        _ = await run.stop()
    }

    @Test("a Redis whose CONFIG is denied starts with one warning that its persistence is unknown")
    func configDenied() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let setup = try Self.serve(port: redis.port, ["--allow-volatile-factors"])
        _ = await setup.waitForFirstLine()
        _ = await setup.stop()
        let cli = ChildProcess()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = [
            "-p", String(redis.port), "ACL", "SETUSER", "otp", "on", ">pw", "~*", "&*", "+@all", "-config",
        ]
        cli.standardOutput = .null
        try cli.run()
        cli.waitUntilExit()
        #expect(cli.terminationStatus == 0)
        let run = try Self.serve(
            port: redis.port, [], url: "redis://otp@127.0.0.1:\(redis.port)/0",
            environment: ["OTP_STORE_PASSWORD": "pw"])
        #expect(ServeLog.listeningURL(await run.waitForFirstLine()) != nil)
        let (_, _, stderr) = await run.stop()
        let warnings = Self.lines(stderr).filter { $0.contains("persistence") || $0.contains("restart") }
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.hasPrefix(
                "warning: cannot tell whether the Redis store keeps authenticator factors across a restart: "
                    + "CONFIG GET was refused (NOPERM") == true)
    }

    @Test("an outage after start is logged once with its cause, however many requests fail")
    func outageLoggedOnce() async throws {
        let redis = try RedisProcess()
        let run = try Self.serve(port: redis.port, ["--allow-volatile-factors"])
        _ = await run.waitForFirstLine()
        let port = try #require(run.port)
        let headers = [("Authorization", "Bearer redis-key-0123456789abcdefghijklmn")]
        let first = try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/verifications", headers: headers,
            body: #"{"to":"+12025550100"}"#)
        #expect(first.status == 201)
        redis.stop()
        for _ in 0..<10 {
            let answer = try await RawHTTP.request(
                port: port, method: "POST", path: "/v1/verifications", headers: headers,
                body: #"{"to":"+12025550101"}"#)
            #expect(answer.status == 503)
        }
        let (_, _, stderr) = await run.stop()
        // Each 503 says why: the store's own error, with the route.
        let failures = ServeLog.objects(stderr).filter {
            $0["message"] as? String == "the store failed; the request was answered 503"
        }
        #expect(failures.count == 10)
        #expect(
            failures.allSatisfy {
                $0["level"] as? String == "error" && ($0["error"] as? String)?.isEmpty == false
            })
        #expect(failures.allSatisfy { $0["route"] as? String == "/v1/verifications" })
        #expect(
            Set(failures.compactMap { $0["requestId"] as? String }).count == 10, "each with its request's id")
        let outages = Self.lines(stderr).filter { $0.contains("stopped answering") }
        #expect(outages.count == 1)
        #expect(
            outages.first?.hasPrefix("warning: redis: the store stopped answering: ")
                == true)
    }
}
