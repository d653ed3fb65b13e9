import Foundation
import OTPEngine
import OTPHTTP
import OTPTestSupport
import Testing

@Suite struct RedisTests {
    @Test("a store that stops answering gives 503 store_unavailable and an unhealthy /healthz")
    func storeUnavailable() async throws {
        let redis = try RedisProcess()
        try await Harness.with(redisPort: redis.port) { harness in
            let id = try await harness.start()
            #expect(try await harness.call("GET", "/healthz", key: .some(nil)).status == 200)
            // A check before makes the later one take the path of a verification seen before,
            // answered from the store's connection queue.
            let wrong = try harness.code(for: id) == "123456" ? "654321" : "123456"
            #expect(try await harness.check(id, wrong).status == 422)
            redis.stop()
            let start = try await harness.call("POST", "/v1/verifications", json: #"{"to":"+12025550111"}"#)
            #expect(start.status == 503)
            #expect(start.errorCode == "store_unavailable")
            let status = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(status.status == 503)
            let check = try await harness.check(id, "123456")
            #expect(check.status == 503)
            let health = try await harness.call("GET", "/healthz", key: .some(nil))
            #expect(health.status == 503)
            #expect(health.text == #"{"status":"unavailable","version":"\#(BuildInfo.version)"}"#)
        }
    }

    @Test("a Redis store that cannot be reached at start-up stops the server from starting")
    func unreachableAtStart() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        await #expect(throws: (any Error).self) {
            try await Harness.with(redisPort: port) { _ in }
        }
    }

    /// Three `otp serve` processes on one Redis, sharing the secret file and an outbox.
    struct Cluster {
        let servers: [ServeProcess]
        let ports: [Int]
        let outbox: String
        let directory: URL

        static func start(count: Int) async throws -> Cluster {
            let redis = try TestRedis.port()
            let directory = try temporaryDirectory()
            let outbox = directory.appendingPathComponent("outbox.jsonl").path
            let database = Int.random(in: 1...15)
            var servers: [ServeProcess] = []
            var ports: [Int] = []
            for _ in 0..<count {
                let server = try ServeProcess([
                    "serve", "--port", "0", "--api-key", "cluster-key-0123456789abcdefghijklmn", "--store",
                    "redis://127.0.0.1:\(redis)/\(database)", "--secret-file",
                    directory.appendingPathComponent("secret").path, "--sender", "outbox:\(outbox)",
                    "--limit-checks-per-address", "10000/60", "--limit-failed-checks-per-destination",
                    "10000/60", "--allow-volatile-factors",
                ])
                _ = await server.waitForFirstLine()
                servers.append(server)
                ports.append(try #require(server.port))
            }
            return Cluster(servers: servers, ports: ports, outbox: outbox, directory: directory)
        }

        func post(_ port: Int, _ path: String, _ body: String) async throws -> RawResponse {
            try await RawHTTP.request(
                port: port, method: "POST", path: path,
                headers: [("Authorization", "Bearer cluster-key-0123456789abcdefghijklmn")],
                body: body)
        }

        func stop() async -> [Int32] {
            var statuses: [Int32] = []
            for server in servers { statuses.append(await server.stop().status) }
            try? FileManager.default.removeItem(at: directory)
            return statuses
        }

        func code(for id: String) throws -> String {
            let body = try #require(
                try OutboxSender.entries(path: outbox).last { $0.verificationId == id }?.body)
            let range = try #require(body.range(of: "code is "))
            return String(body[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test("parallel checks on three servers sharing Redis judge at most attemptsLeft codes, and approve once")
    func raceAcrossProcesses() async throws {
        let cluster = try await Cluster.start(count: 3)
        let ports = cluster.ports
        let started = try await cluster.post(ports[0], "/v1/verifications", #"{"to":"+12025550100"}"#)
        let id = try #require(started.json["id"] as? String)
        let code = try cluster.code(for: id)
        let wrong = code == "000000" ? "111111" : "000000"
        let wrongStatuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<30 {
                group.addTask {
                    try await cluster.post(
                        ports[index % 3], "/v1/verifications/\(id)/check", "{\"code\":\"\(wrong)\"}"
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(wrongStatuses.filter { $0 == 422 }.count == 3, "\(wrongStatuses.sorted())")
        #expect(wrongStatuses.filter { $0 == 423 }.count == 27, "\(wrongStatuses.sorted())")
        #expect(
            try await cluster.post(ports[1], "/v1/verifications/\(id)/check", "{\"code\":\"\(code)\"}").status
                == 423)

        let second = try await cluster.post(ports[2], "/v1/verifications", #"{"to":"+12025550199"}"#)
        let secondID = try #require(second.json["id"] as? String)
        let secondCode = try cluster.code(for: secondID)
        let rightStatuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<30 {
                group.addTask {
                    try await cluster.post(
                        ports[index % 3], "/v1/verifications/\(secondID)/check",
                        "{\"code\":\"\(secondCode)\"}"
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(rightStatuses.filter { $0 == 200 }.count == 1, "\(rightStatuses.sorted())")
        // The others find it approved (409), or, while the winner is still being judged, find the attempts
        // taken by parallel checks (423): never a second approval.
        #expect(rightStatuses.allSatisfy { [200, 409, 423].contains($0) }, "\(rightStatuses.sorted())")
        #expect(await cluster.stop() == [0, 0, 0])
    }
}
