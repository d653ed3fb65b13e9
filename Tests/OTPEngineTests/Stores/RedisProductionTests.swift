import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPRedis

/// The Redis store in production: refused at open when it cannot work, outages reported once,
/// writes held until replicas have them, the primary found through Sentinel, persistence read.
@Suite struct RedisProductionTests {
    /// The lines a store reports, kept in order.
    final class Lines: Sendable {
        private let lines = Locked<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var report: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
    }

    @Test("a server that needs a password refuses a store opened without one, at open, saying NOAUTH")
    func noPassword() throws {
        let redis = try OwnRedis(["--requirepass", "right-password"])
        defer { redis.stop() }
        #expect(
            throws: StoreError("redis: the server requires a password (NOAUTH Authentication required.)")
        ) {
            try RedisStore(host: "127.0.0.1", port: redis.port, connections: 1)
        }
        do {
            _ = try RedisStore(host: "127.0.0.1", port: redis.port, connections: 1, password: "wrong-guess")
            Issue.record("a wrong password opened a store")
        } catch {
            #expect(error.reason.hasPrefix("redis: AUTH was refused (WRONGPASS"))
            #expect(!error.description.contains("wrong-guess"))
        }
        _ = try RedisStore(host: "127.0.0.1", port: redis.port, connections: 1, password: "right-password")
    }

    @Test("a PING or a WAIT the ACL user may not run is refused with Redis's own words")
    func deniedCommands() async throws {
        let port = try RedisTestServer.port.get()
        let user = "otp-test-\(UUID().uuidString.prefix(8))"
        try RedisAuthTests.cli(["ACL", "SETUSER", user, "on", ">pw", "~*", "&*", "+@all", "-ping", "-wait"])
        defer { _ = try? RedisAuthTests.cli(["ACL", "DELUSER", user]) }
        do {
            _ = try RedisStore(host: "127.0.0.1", port: port, connections: 1, username: user, password: "pw")
            Issue.record("a store opened without PING")
        } catch {
            #expect(error.reason.hasPrefix("redis: PING was refused (NOPERM"))
        }
        try RedisAuthTests.cli(["ACL", "SETUSER", user, "+ping"])
        let store = try RedisStore(
            host: "127.0.0.1", port: port, keyPrefix: "otp-test:\(user):", connections: 1, username: user,
            password: "pw", waitReplicas: 1)
        do {
            _ = try await store.insert(
                StoreConformanceTests.sample("vf_nowait"), claim: nil, now: StoreConformanceTests.t0)
            Issue.record("a write succeeded without WAIT")
        } catch {
            #expect(error.reason.hasPrefix("redis: NOPERM"))
        }
        await store.shutdown()
    }

    @Test("a server that cannot be reached is refused at open, with the system's reason")
    func unreachable() throws {
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        do {
            _ = try RedisStore(host: "127.0.0.1", port: port, connections: 1)
            Issue.record("a store opened on a port nothing listens on")
        } catch {
            #expect(error.reason == "redis: Connection refused")
        }
    }

    @Test("an outage is reported once with its cause however many calls fail, and the recovery once")
    func outageReportedOnce() async throws {
        let port = try RedisTestServer.port.get()
        let user = "otp-test-\(UUID().uuidString.prefix(8))"
        try RedisAuthTests.cli(["ACL", "SETUSER", user, "on", ">pw", "~*", "&*", "+@all"])
        defer { _ = try? RedisAuthTests.cli(["ACL", "DELUSER", user]) }
        let lines = Lines()
        let store = try RedisStore(
            host: "127.0.0.1", port: port, keyPrefix: "otp-test:\(user):", connections: 2, username: user,
            password: "pw", report: lines.report)
        #expect(try await store.record(id: "vf_none") == nil)
        #expect(lines.all.isEmpty, "no line while the store works")

        // The user is turned off and its connections dropped: every call, and every reconnection, fails.
        try RedisAuthTests.cli(["ACL", "SETUSER", user, "off"])
        try RedisAuthTests.cli(["CLIENT", "KILL", "USER", user])
        for _ in 0..<20 {
            await #expect(throws: StoreError.self) { try await store.record(id: "vf_none") }
        }
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasSuffix("; not reported again until it answers") == true)
        #expect(lines.all.first?.hasPrefix("redis: the store stopped answering: ") == true)

        try RedisAuthTests.cli(["ACL", "SETUSER", user, "on"])
        #expect(try await store.record(id: "vf_none") == nil)
        _ = try await store.record(id: "vf_none")
        #expect(lines.all.count == 2)
        #expect(lines.all.last == "redis: the store answers again, after 20 failed calls")
        await store.shutdown()
    }

    @Test("each write waits for the replicas it is told to; too few in time fail the call, pipelined or not")
    func waitReplicas() async throws {
        let primary = try OwnRedis()
        defer { primary.stop() }
        let replica = try OwnRedis(["--replicaof", "127.0.0.1", String(primary.port)])
        defer { replica.stop() }
        for _ in 0..<100 where !(try replica.cli(["INFO", "replication"])).contains("master_link_status:up") {
            usleep(50_000)  // the replica's first sync (not a deadline in the test)
        }
        let one = try RedisStore(host: "127.0.0.1", port: primary.port, connections: 1, waitReplicas: 1)
        _ = try await one.insert(
            StoreConformanceTests.sample("vf_waited"), claim: nil, now: StoreConformanceTests.t0)
        #expect(try await one.record(id: "vf_waited") != nil)
        await one.shutdown()

        let two = try RedisStore(host: "127.0.0.1", port: primary.port, connections: 1, waitReplicas: 2)
        let failures = await withTaskGroup(of: StoreError?.self) { group in
            for index in 0..<3 {
                group.addTask {
                    do throws(StoreError) {
                        _ = try await two.insert(
                            StoreConformanceTests.sample("vf_two\(index)"), claim: nil,
                            now: StoreConformanceTests.t0)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            return await group.reduce(into: [StoreError?]()) { $0.append($1) }
        }
        #expect(failures.count == 3)
        for failure in failures {
            #expect(failure == StoreError("redis: 1 of 2 replicas acknowledged the write in time (WAIT)"))
        }
        await two.shutdown()
    }

    @Test("a replica's READONLY fails the call and drops the connection; the next call connects again")
    func readOnly() async throws {
        let primary = try OwnRedis()
        defer { primary.stop() }
        let replica = try OwnRedis(["--replicaof", "127.0.0.1", String(primary.port)])
        defer { replica.stop() }
        let store = try RedisStore(host: "127.0.0.1", port: replica.port, connections: 1)
        for attempt in 0..<2 {
            do {
                _ = try await store.insert(
                    StoreConformanceTests.sample("vf_ro\(attempt)"), claim: nil, now: StoreConformanceTests.t0
                )
                Issue.record("a replica took a write")
            } catch {
                #expect(error.reason.hasPrefix("redis: READONLY"))
            }
        }
        // The store's connection was dropped after the refusal. (Not counted: the primary's link,
        // flags=M, and redis-cli's own, whose command is CLIENT.)
        let clients = {
            try replica.cli(["CLIENT", "LIST"]).split(separator: "\n").filter {
                !$0.contains("flags=M") && !$0.contains("cmd=client")
            }
        }
        #expect(try clients().count == 0)
        #expect(try await store.record(id: "vf_ro0") == nil, "reads connect again")
        #expect(try clients().count == 1)
        await store.shutdown()
    }

    @Test("the primary is found through the sentinels, each asked in turn; their refusals are named")
    func sentinel() async throws {
        let primary = try OwnRedis()
        defer { primary.stop() }
        let sentinel = try OwnRedis(sentinelFor: primary.port, name: "otp")
        defer { sentinel.stop() }
        // Held bound and never listening for the whole test, so no other test's server takes it.
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let refusing = RedisAddress(host: "127.0.0.1", port: closed.port)
        let store = try RedisStore(
            sentinels: [refusing, RedisAddress(host: "127.0.0.1", port: sentinel.port)], primaryName: "otp",
            connections: 1)
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_sentinel"), claim: nil, now: StoreConformanceTests.t0)
        #expect(try primary.cli(["EXISTS", "otp:v:vf_sentinel"]).hasPrefix("1"))
        await store.shutdown()

        #expect(throws: StoreError("redis: no sentinel to ask")) {
            try RedisStore(sentinels: [], primaryName: "otp")
        }
        let plain = RedisAddress(host: "127.0.0.1", port: primary.port)
        let known = RedisAddress(host: "127.0.0.1", port: sentinel.port)
        do {
            _ = try RedisStore(sentinels: [refusing, plain, known], primaryName: "elsewhere", connections: 1)
            Issue.record("a primary no sentinel knows was found")
        } catch {
            #expect(error.reason.hasPrefix("redis: no sentinel named the primary elsewhere ("))
            #expect(error.reason.contains("\(refusing): Connection refused"))
            #expect(error.reason.contains("\(plain): ERR unknown command"))
            #expect(error.reason.contains("\(known): it monitors no primary named elsewhere"))
        }
    }

    @Test(
        "a failover is followed without a restart: a READONLY call fails, the next one asks the sentinel again"
    )
    func followsFailover() async throws {
        let first = try OwnRedis()
        defer { first.stop() }
        let second = try OwnRedis()
        defer { second.stop() }
        let sentinel = try OwnRedis(sentinelFor: first.port, name: "otp")
        defer { sentinel.stop() }
        let lines = Lines()
        let store = try RedisStore(
            sentinels: [RedisAddress(host: "127.0.0.1", port: sentinel.port)], primaryName: "otp",
            connections: 1,
            report: lines.report)
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_before"), claim: nil, now: StoreConformanceTests.t0)

        // A failover as the sentinels would make it: the second server is named, the first becomes its replica.
        try sentinel.cli(["SENTINEL", "REMOVE", "otp"])
        try sentinel.cli(["SENTINEL", "MONITOR", "otp", "127.0.0.1", String(second.port), "1"])
        try first.cli(["REPLICAOF", "127.0.0.1", String(second.port)])
        do {
            _ = try await store.insert(
                StoreConformanceTests.sample("vf_in_flight"), claim: nil, now: StoreConformanceTests.t0)
            Issue.record("the old primary took a write")
        } catch {
            #expect(error.reason.hasPrefix("redis: READONLY"))
        }
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_after"), claim: nil, now: StoreConformanceTests.t0)
        #expect(try second.cli(["EXISTS", "otp:v:vf_after"]).hasPrefix("1"))

        // The new primary then goes away for good: the next call fails, the one after finds the first again.
        try sentinel.cli(["SENTINEL", "REMOVE", "otp"])
        try first.cli(["REPLICAOF", "NO", "ONE"])
        try sentinel.cli(["SENTINEL", "MONITOR", "otp", "127.0.0.1", String(first.port), "1"])
        second.stop()
        await #expect(throws: StoreError.self) { try await store.record(id: "vf_after") }
        _ = try await store.insert(
            StoreConformanceTests.sample("vf_back"), claim: nil, now: StoreConformanceTests.t0)
        #expect(try first.cli(["EXISTS", "otp:v:vf_back"]).hasPrefix("1"))
        #expect(lines.all.count == 4, "\(lines.all)")
        await store.shutdown()
    }

    @Test(
        "persistence is read from CONFIG: no append-only file and no save is volatile; a refusal is unknown")
    func persistence() async throws {
        let volatile = try OwnRedis()
        defer { volatile.stop() }
        let store = try RedisStore(host: "127.0.0.1", port: volatile.port, connections: 1)
        #expect(try await store.persistence() == .volatile)
        try volatile.cli(["CONFIG", "SET", "save", "3600 1"])
        #expect(try await store.persistence() == .persistent)
        try volatile.cli(["ACL", "SETUSER", "no-config", "on", ">pw", "~*", "&*", "+@all", "-config"])
        let denied = try RedisStore(
            host: "127.0.0.1", port: volatile.port, connections: 1, username: "no-config", password: "pw")
        guard case .unknown(let reason) = try await denied.persistence() else {
            Issue.record("a denied CONFIG GET read as known")
            return
        }
        #expect(reason.hasPrefix("CONFIG GET was refused (NOPERM"))
        await store.shutdown()
        await denied.shutdown()

        let pair: (String, String) -> RedisValue = {
            .array([.string(Array($0.utf8)), .string(Array($1.utf8))])
        }
        #expect(
            RedisStore.persistence(appendOnly: pair("appendonly", "no"), save: pair("save", "")) == .volatile)
        #expect(
            RedisStore.persistence(appendOnly: pair("appendonly", "yes"), save: pair("save", ""))
                == .persistent)
        #expect(
            RedisStore.persistence(appendOnly: pair("appendonly", "no"), save: pair("save", "900 1"))
                == .persistent)
        #expect(
            RedisStore.persistence(appendOnly: .array([]), save: pair("save", ""))
                == .unknown("CONFIG GET answered an unexpected reply"))
    }
}
