import Foundation
import OTPCore
import OTPEngine
import OTPServe
import Testing

@testable import OTPHTTP

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date { lock.withLock { current } }

    func advance(seconds: Double) {
        lock.withLock { current = current.addingTimeInterval(seconds) }
    }
}

/// Collects the request log's lines.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    var all: [String] { lock.withLock { lines } }

    func append(_ line: String) {
        let ready = lock.withLock {
            lines.append(line)
            let ready = waiters.filter { $0.count <= lines.count }
            waiters.removeAll { $0.count <= lines.count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// The first `count` lines, once written: the server writes a request's line when
    /// libmicrohttpd reports the request finished, which can be after the client has its answer.
    func first(_ count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if lines.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
        return Array(all.prefix(count))
    }
}

/// The store a black-box run uses.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case redis
    case postgres

    var testDescription: String { rawValue }
}

/// One in-process server on its own port, store, outbox, key and clock.
final class Harness: @unchecked Sendable {
    let server: RunningServer
    let clock: TestClock
    let outbox: String
    let key = "key-\(UUID().uuidString)"
    let log = LogLines()
    let directory: URL

    var port: Int { server.port }

    init(
        store: StoreKind = .memory, policy: Policy = Policy(), senders: [SenderSpec]? = nil,
        trustedProxies: Int = 0, connectionTimeout: Duration = .seconds(10),
        metricsAddress: (host: String, port: Int)? = nil, environment: [String: String] = [:],
        redisPort: Int? = nil, checkFloor: Duration = ServerSettings.checkFloor.defaultValue,
        hosted: HostedPages? = nil, publishableKeys: [String: String] = [:],
        startGuard: StartGuardSettings? = nil, eventsURL: String? = nil,
        eventDelivery: EventDeliverySettings = EventDeliverySettings()
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outbox = directory.appendingPathComponent("outbox.jsonl").path
        let clock = TestClock()
        self.clock = clock
        let log = self.log
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, apiKeys: ["other-key", key], policy: policy,
            trustedProxies: trustedProxies,
            metricsAddress: metricsAddress, connectionTimeout: connectionTimeout, checkFloor: checkFloor,
            requestLog: RequestLog(now: { clock.now }, write: { log.append($0) }), now: { clock.now },
            hosted: hosted, publishableKeys: publishableKeys, startGuard: startGuard)
        var settings = ServeSettings(
            server: configuration,
            store: redisPort.map { .redis(host: "127.0.0.1", port: $0, database: 0) }
                ?? Self.store(store, in: directory, prefix: "otp-\(directory.lastPathComponent):"),
            senders: senders ?? [.outbox(path: outbox)],
            secretFile: directory.appendingPathComponent("secret").path, environment: environment,
            eventsURL: eventsURL)
        settings.eventDelivery = eventDelivery
        // The test Redis keeps nothing across a restart; ServeAssemblyRedisTests judge that refusal.
        settings.allowVolatileFactors = true
        server = try await ServeAssembly.start(settings)
    }

    /// The store of `kind`, on its own file, under its own Redis key prefix or in its own schema.
    private static func store(_ kind: StoreKind, in directory: URL, prefix: String) -> StoreSpec {
        switch kind {
        case .memory: .memory
        case .sqlite: .sqlite(path: directory.appendingPathComponent("otp.sqlite3").path)
        case .redis:
            .redis(host: "127.0.0.1", port: (try? TestRedis.port()) ?? 1, database: 0, keyPrefix: prefix)
        case .postgres:
            .postgres(
                url: (try? TestPostgres.url()) ?? "postgres://unavailable@127.0.0.1:1/none",
                schema: TestPostgres.freshSchema(), connections: 2)
        }
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A request with this harness's key unless told otherwise.
    func call(
        _ method: String, _ path: String, json: String? = nil, key: String?? = .none,
        headers: [(String, String)] = []
    ) async throws -> RawResponse {
        var all = headers
        let chosen = key ?? self.key
        if let chosen { all.append(("Authorization", "Bearer \(chosen)")) }
        if json != nil { all.append(("Content-Type", "application/json")) }
        let response = try await RawHTTP.request(
            port: port, method: method, path: path, headers: all, body: json)
        // Every answer any black-box test sees must be one the API contract (and openapi.yaml) lists.
        #expect(
            APIContract.allows(method: method, path: path, status: response.status, code: response.errorCode),
            "\(method) \(path) answered \(response.status) \(response.errorCode ?? "")")
        return response
    }

    /// Starts a verification and returns its id.
    func start(_ to: String = "+12015550100", headers: [(String, String)] = []) async throws -> String {
        let response = try await call(
            "POST", "/v1/verifications", json: "{\"to\":\"\(to)\"}", headers: headers)
        guard response.status == 201, let id = response.json["id"] as? String else {
            throw HarnessError.unexpected(response.status, response.text)
        }
        return id
    }

    /// The code of the last message sent for a verification.
    func code(for id: String) throws -> String {
        let entries = try OutboxSender.entries(path: outbox).filter { $0.verificationId == id }
        guard let body = entries.last?.body, let range = body.range(of: "code is ") else {
            throw HarnessError.noCode
        }
        return String(body[range.upperBound...].prefix { $0.isNumber })
    }

    /// How many messages were sent for a verification.
    func sends(for id: String) -> Int {
        ((try? OutboxSender.entries(path: outbox)) ?? []).filter { $0.verificationId == id }.count
    }

    func check(_ id: String, _ code: String, headers: [(String, String)] = []) async throws -> RawResponse {
        try await call(
            "POST", "/v1/verifications/\(id)/check", json: "{\"code\":\"\(code)\"}", headers: headers)
    }
}

enum HarnessError: Error {
    case unexpected(Int, String)
    case noCode
}

extension Harness {
    /// Runs `body` against a fresh harness and stops it afterwards, whatever happens.
    static func with<T>(
        store: StoreKind = .memory, policy: Policy = Policy(), senders: [SenderSpec]? = nil,
        trustedProxies: Int = 0, connectionTimeout: Duration = .seconds(10),
        metricsAddress: (host: String, port: Int)? = nil, environment: [String: String] = [:],
        redisPort: Int? = nil, checkFloor: Duration = ServerSettings.checkFloor.defaultValue,
        hosted: HostedPages? = nil, publishableKeys: [String: String] = [:],
        startGuard: StartGuardSettings? = nil, eventsURL: String? = nil,
        eventDelivery: EventDeliverySettings = EventDeliverySettings(),
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        let harness = try await Harness(
            store: store, policy: policy, senders: senders, trustedProxies: trustedProxies,
            connectionTimeout: connectionTimeout, metricsAddress: metricsAddress, environment: environment,
            redisPort: redisPort, checkFloor: checkFloor, hosted: hosted, publishableKeys: publishableKeys,
            startGuard: startGuard, eventsURL: eventsURL, eventDelivery: eventDelivery)
        do {
            let result = try await body(harness)
            await harness.stop()
            return result
        } catch {
            await harness.stop()
            throw error
        }
    }
}

/// Starts a server the way `otp serve` does, from text-level choices, with `otp serve`'s defaults.
func serve(
    host: String = "127.0.0.1", port: Int, apiKeys: [String], store: StoreSpec = .memory,
    senders: [SenderSpec] = [.console], policy: Policy = .default, secretFile: String? = nil,
    metricsAddress: (host: String, port: Int)? = nil, requestLog: RequestLog
) async throws(ServerStartError) -> RunningServer {
    try await ServeAssembly.start(
        ServeSettings(
            server: ServerConfiguration(
                host: host, port: port, apiKeys: apiKeys, policy: policy, metricsAddress: metricsAddress,
                requestLog: requestLog),
            store: store, senders: senders, secretFile: secretFile))
}
