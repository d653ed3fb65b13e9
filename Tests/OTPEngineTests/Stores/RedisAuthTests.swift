import Foundation
import OTPEngine
import OTPRedis
import OTPTestSupport
import Testing

/// AUTH against the test Redis, through an ACL user made for each test and deleted after it.
@Suite struct RedisAuthTests {
    /// Runs `redis-cli` against the test server and returns its output.
    @discardableResult
    static func cli(_ arguments: [String]) throws -> String {
        let port = try RedisTestServer.port.get()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        process.arguments = ["-p", String(port)] + arguments
        let output = Pipe()
        process.standardOutput = .pipe(output)
        process.standardError = .null
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a store AUTHs as an ACL user; a wrong password is refused at open with one line that hides it")
    func aclUser() async throws {
        let port = try RedisTestServer.port.get()
        let user = "otp-test-\(UUID().uuidString.prefix(8))"
        let password = "pw-\(UUID().uuidString)"
        try Self.cli(["ACL", "SETUSER", user, "on", ">\(password)", "~*", "&*", "+@all"])
        defer { _ = try? Self.cli(["ACL", "DELUSER", user]) }

        let store = try RedisStore(
            host: "127.0.0.1", port: port, keyPrefix: "otp-test:\(user):", connections: 1, username: user,
            password: password)
        #expect(await store.ping())
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_auth"), claim: nil, now: StoreConformanceTests.t0)
        #expect(try await store.record(id: "vf_auth") != nil)
        await store.shutdown()

        do {
            _ = try RedisStore(
                host: "127.0.0.1", port: port, connections: 1, username: user, password: "wrong-guess")
            Issue.record("a wrong password opened a store")
        } catch {
            #expect(error.reason.hasPrefix("redis: AUTH was refused"))
            #expect(!error.description.contains("wrong-guess"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("health asks for a write: a Redis store that may read but not write is unhealthy")
    func healthNeedsWrites() async throws {
        let port = try RedisTestServer.port.get()
        let user = "otp-test-\(UUID().uuidString.prefix(8))"
        try Self.cli(["ACL", "SETUSER", user, "on", ">pw", "~*", "&*", "+@all", "-@write"])
        defer { _ = try? Self.cli(["ACL", "DELUSER", user]) }
        let store = try RedisStore(
            host: "127.0.0.1", port: port, keyPrefix: "otp-test:\(user):", connections: 1, username: user,
            password: "pw")
        #expect(try await store.record(id: "vf_none") == nil, "reads still work")
        #expect(await !store.ping())
        await store.shutdown()
    }

    @Test("a connection whose SELECT fails is closed, never left on database 0")
    func failedSelect() throws {
        let port = try RedisTestServer.port.get()
        let user = "otp-test-\(UUID().uuidString.prefix(8))"
        try Self.cli(["ACL", "SETUSER", user, "on", ">pw", "~*", "&*", "+@all", "-select"])
        defer { _ = try? Self.cli(["ACL", "DELUSER", user]) }
        #expect(throws: StoreError("redis: could not select database 3")) {
            try RedisStore(
                host: "127.0.0.1", port: port, database: 3, connections: 1, username: user, password: "pw")
        }
        let onZero = try RedisStore(
            host: "127.0.0.1", port: port, connections: 1, username: user, password: "pw")
        _ = onZero
    }
}
