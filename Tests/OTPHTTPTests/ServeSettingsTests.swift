import Foundation
import OTPServe
import Testing

@testable import otp

@Suite struct ServeSettingsTests {
    func settings(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeSettings {
        let options = try ParsedOptions.parse(arguments, specs: ServeOptions.all, environment: environment)
        return try ServeCommand.makeSettings(options, environment: environment).0
    }

    @Test("a paid SMS sender gets a global send cap when none is given, and says so")
    func defaultSMSCap() throws {
        let environment = ["OTP_WEBHOOK_SECRET": "s"]
        for sender in ["twilio", "webhook:https://hooks.example.com/otp"] {
            let capped = try settings(
                ["--api-key", "k-0123456789abcdefghijklmn", "--sender", sender], environment: environment)
            #expect(capped.server.policy.globalSendsPerHour == ServeOptions.defaultSMSCap, "\(sender)")
            #expect(capped.server.policy.sendsPerCallingCodePerHour == 250, "\(sender)")
            let options = try ParsedOptions.parse(
                ["--api-key", "k-0123456789abcdefghijklmn", "--sender", sender], specs: ServeOptions.all,
                environment: environment)
            #expect(
                ServeCommand.warnings(options, settings: capped).contains {
                    $0.contains("global cap of 1000")
                })
            let chosen = try settings(
                [
                    "--api-key", "k-0123456789abcdefghijklmn", "--sender", sender, "--global-sends-per-hour",
                    "50",
                ],
                environment: environment)
            #expect(chosen.server.policy.globalSendsPerHour == 50)
        }
        let free = try settings([
            "--api-key", "k-0123456789abcdefghijklmn", "--sender", "smtp://127.0.0.1:2525", "--domain",
            "example.org",
        ])
        #expect(free.server.policy.globalSendsPerHour == nil)
        #expect(free.server.policy.sendsPerCallingCodePerHour == nil)
    }

    @Test("events, their back-off bound and the TOTP failure limit are read from options and the environment")
    func eventsAndTOTP() throws {
        let base = ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]
        let plain = try settings(base)
        #expect(plain.eventsURL == nil)
        #expect(plain.eventDelivery.retryCap == .seconds(600))
        #expect(plain.server.policy.totpMaxFailures == 10)
        let chosen = try settings(
            base + ["--events", "webhook:https://hooks.example.com/e", "--events-retry-max", "30"],
            environment: ["OTP_TOTP_MAX_FAILURES": "25"])
        #expect(chosen.eventsURL == "https://hooks.example.com/e")
        #expect(chosen.eventDelivery.retryCap == .seconds(30))
        #expect(chosen.server.policy.totpMaxFailures == 25)
        #expect(throws: UsageError.self) { try settings(base + ["--events", "https://x"]) }
        #expect(throws: UsageError.self) { try settings(base + ["--totp-max-failures", "0"]) }
        #expect(throws: UsageError.self) { try settings(base + ["--events-retry-max", "0"]) }
    }

    @Test("a PostgreSQL store takes its pool size and a password file; other stores refuse both")
    func postgresStoreOptions() throws {
        let base = ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]
        let url = "postgres://otp@db/otp"
        #expect(try settings(base + ["--store", url]).store == .postgres(url: url, connections: 4))
        #expect(
            try settings(base + ["--store", url], environment: ["OTP_STORE_CONNECTIONS": "9"]).store
                == .postgres(url: url, connections: 9))
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", url, "--store-connections", "0"])
        }
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", url, "--store-connections", "257"])
        }
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", "memory", "--store-connections", "2"])
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pgpass").path
        #expect(
            FileManager.default.createFile(
                atPath: file, contents: Data("s3cret\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(
            try settings(base + ["--store", url, "--store-password-file", file]).store
                == .postgres(url: url, connections: 4, password: "s3cret"))
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", "memory", "--store-password-file", file])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", url, "--store-password-file", file])
        }
        let empty = directory.appendingPathComponent("empty").path
        #expect(
            FileManager.default.createFile(
                atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o600]))
        #expect(throws: UsageError.self) {
            try settings(base + ["--store", url, "--store-password-file", empty])
        }
    }

    @Test("a password in the PostgreSQL store URL draws a warning; a password file does not")
    func postgresPasswordWarning() throws {
        let base = ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]
        for (url, warned) in [("postgres://otp:pw@db/otp", true), ("postgres://otp@db/otp", false)] {
            let arguments = base + ["--store", url]
            let options = try ParsedOptions.parse(arguments, specs: ServeOptions.all, environment: [:])
            let warnings = ServeCommand.warnings(options, settings: try settings(arguments))
            #expect(warnings.contains { $0.contains("store URL holds a password") } == warned, "\(url)")
            #expect(!warnings.contains { $0.contains("pw") }, "\(url)")
        }
    }

    @Test("one address may hold 64 connections by default, none limited behind a proxy, or as told")
    func connectionsPerAddress() throws {
        let base = ["--api-key", "k-0123456789abcdefghijklmn", "--sender", "console"]
        #expect(try settings(base).server.maxConnectionsPerAddress == 64)
        #expect(try settings(base + ["--trust-proxy", "1"]).server.maxConnectionsPerAddress == 0)
        #expect(
            try settings(base + ["--trust-proxy", "1", "--max-connections-per-address", "500"]).server
                .maxConnectionsPerAddress == 500)
        #expect(throws: UsageError.self) { try settings(base + ["--max-connections-per-address", "-1"]) }
    }

    @Test("each option is read through its one declaration: names, environment variables and bounds agree")
    func declarations() throws {
        let names = ServeOptions.all.map(\.name)
        #expect(Set(names).count == names.count)
        for spec in ServeOptions.all {
            #expect(spec.environment.first == OptionSpec.environmentName(spec.name))
        }
        let parsed = try settings(
            [
                "--api-key", "k-0123456789abcdefghijklmn", "--sender", "console", "--trust-proxy", "2",
                "--resend-cooldowns",
                "0,31536000",
            ])
        #expect(parsed.server.trustedProxies == 2)
        #expect(parsed.server.policy.resendCooldowns == [.zero, .seconds(31_536_000)])
    }
}
