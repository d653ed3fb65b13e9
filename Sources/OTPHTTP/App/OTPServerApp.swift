import Foundation
import OTPCore
import OTPEngine

/// Puts a verification server together from a configuration, a store, senders and a key, and starts it.
///
/// `otp serve` runs it until a signal; `otp demo`, tests and other Swift programs run it inside
/// their own process with any store and sender:
///
/// ```swift
/// let server = try await OTPServerApp.start(
///     ServerConfiguration(port: 8080, apiKeys: [apiKey]),
///     store: MemoryStore(), senders: [.sms: mySMSSender, .email: myMailer],
///     secret: try SecretKey.loadOrCreate(path: "/var/lib/otp/secret"))
/// // … later
/// await server.stop()
/// ```
public enum OTPServerApp {
    /// Starts listening with the given parts.
    ///
    /// - Parameters:
    ///   - configuration: the listener, keys, policy and HTTP limits.
    ///   - store: where verifications live; the server owns it from here on and shuts it down when
    ///     it stops (or when starting fails).
    ///   - senders: the sender of each channel; the policy's channels are narrowed to these.
    ///   - secret: the HMAC key, at least 16 bytes; every server sharing a store needs the same one.
    /// - Returns: the running server; ``RunningServer/stop(grace:)`` ends it.
    /// - Throws: ``ServerStartError`` when no API key or sender is given, the key is short, the
    ///   policy cannot work, or a listener cannot bind.
    public static func start(
        _ configuration: ServerConfiguration, store: any VerificationStore,
        senders: [Channel: any CodeSender], secret: [UInt8]
    ) async throws(ServerStartError) -> RunningServer {
        do {
            return try startOrThrow(configuration, store: store, senders: senders, secret: secret)
        } catch {
            await store.shutdown()
            throw error
        }
    }

    /// Refuses publishable keys that are not NAME=pk_… with a valid name and a long enough key.
    static func checkPublishable(_ keys: [String: String]) throws(ServerStartError) {
        for (name, key) in keys where !APIKeys.isValidName(name) || !APIKeys.isValidPublishableKey(key) {
            throw ServerStartError(
                "a publishable key is NAME=pk_… with a name of 1–64 letters, digits, . _ or - and a key of "
                    + "pk_ and at least 20 more characters (\(APIKeys.isValidName(name) ? "the key named \(name)" : "a name") is not)"
            )
        }
    }

    private static func startOrThrow(
        _ configuration: ServerConfiguration, store: any VerificationStore,
        senders: [Channel: any CodeSender], secret: [UInt8]
    ) throws(ServerStartError) -> RunningServer {
        try checkPublishable(configuration.publishableKeys)
        if !configuration.publishableKeys.isEmpty, configuration.approvalTokens == nil,
            configuration.hosted == nil
        {
            throw ServerStartError("publishable keys need a signer for their approval tokens")
        }
        guard !configuration.apiKeys.filter({ !$0.isEmpty }).isEmpty else {
            throw ServerStartError(
                "",
                problems: [
                    ConfigurationProblem(
                        setting: "api-key", fact: "is missing: the API needs at least one key")
                ])
        }
        let settingProblems = ServerSettings.problems(of: configuration)
        guard settingProblems.isEmpty else { throw ServerStartError("", problems: settingProblems) }
        guard !senders.isEmpty else { throw ServerStartError("at least one sender is needed") }
        guard secret.count >= SecretKey.minimumByteCount else {
            throw ServerStartError("the HMAC secret must have at least \(SecretKey.minimumByteCount) bytes")
        }
        let metrics = ServerMetrics()
        let router = ChannelRouter(routes: senders)
        var policy = configuration.policy
        policy.channels = policy.channels.intersection(router.channels)
        let policyProblems = policy.problems()
        let hostedProblems = configuration.hosted?.problems ?? []
        guard policyProblems.isEmpty, hostedProblems.isEmpty else {
            throw ServerStartError(policyProblems.joined(separator: " "), problems: hostedProblems)
        }
        let log = configuration.requestLog
        let blockEvents = configuration.events.map { events in
            FraudReport.BlockEventPoster(events: events, metrics: metrics, log: log)
        }
        let verifier = Verifier(
            store: store,
            sender: MetricsSender(
                base: router, metrics: metrics, log: configuration.requestLog,
                masking: DestinationMasking(phoneNumbers: configuration.phoneNumbers)),
            policy: policy,
            secret: secret, now: configuration.now,
            // The engine sends nothing to a test destination; such a message is only counted.
            testMessages: { message in metrics.recordSend(channel: message.channel, result: "test") },
            phoneNumbers: configuration.phoneNumbers,
            fraudDecisions: FraudReport.reporter(metrics: metrics, log: log, poster: blockEvents))
        let observer: @Sendable (CompletedRequest) -> Void = { request in
            metrics.recordRequest(
                route: request.route, method: request.method, status: request.status,
                duration: request.duration)
            log.record(request)
        }
        let keys = KeyRing(APIKeys(configuration.apiKeys, publishable: configuration.publishableKeys))
        let main: HTTPServer
        var side: HTTPServer?
        do throws(HTTPServerError) {
            main = try HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: configuration.host, port: configuration.port, threads: configuration.threads,
                    connectionTimeout: configuration.connectionTimeout, headerNames: APIHandler.headerNames,
                    maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
                    queryNames: APIHandler.queryNames, clock: configuration.now
                ),
                handler: APIHandler(
                    verifier: verifier, keys: keys, trustedProxies: configuration.trustedProxies,
                    metrics: metrics,
                    servesMetrics: configuration.metricsAddress == nil, checkFloor: configuration.checkFloor,
                    events: log, hosted: configuration.hosted,
                    hostedKey: APIHandler.hostedPageKey(secret: secret),
                    approvalTokens: configuration.approvalTokens, startGuard: configuration.startGuard,
                    maxEventBacklog: configuration.events == nil ? nil : configuration.readyMaxEventBacklog),
                observer: observer)
            if let address = configuration.metricsAddress {
                side = try HTTPServer(
                    configuration: HTTPServerConfiguration(
                        host: address.host, port: address.port, threads: 1,
                        connectionTimeout: configuration.connectionTimeout, clock: configuration.now),
                    handler: APIHandler(
                        verifier: verifier, keys: keys, metrics: metrics, servesMetrics: true,
                        checkFloor: configuration.checkFloor,
                        // `/metrics` there has the event backlog too.
                        maxEventBacklog: configuration.events == nil
                            ? nil : configuration.readyMaxEventBacklog,
                        onlyMetricsAndHealth: true))
            }
        } catch {
            throw ServerStartError(error.description)
        }
        var deliverer: EventDeliverer?
        if let events = configuration.events {
            deliverer = EventDeliverer(
                store: store, settings: events.settings, deliver: events.deliver, now: configuration.now,
                report: { event, outcome in
                    metrics.recordEvent(type: event.kind.rawValue, result: outcome.rawValue)
                    if outcome == .dropped {
                        log.log(
                            .error, "an event was dropped after failing for longer than the retries allow",
                            [
                                "event": event.kind.rawValue, "eventId": event.id,
                                "verification": event.verificationID,
                            ])
                    }
                })
        }
        return RunningServer(
            main: main, metricsServer: side, verifier: verifier, store: store, metrics: metrics,
            policy: policy, keys: keys,
            takesPublishableKeys: configuration.approvalTokens != nil || configuration.hosted != nil,
            purgeInterval: configuration.purgeInterval, requestLog: log, deliverer: deliverer,
            blockEvents: blockEvents)
    }
}

/// A started server: its address, its parts, and a graceful stop.
public final class RunningServer: Sendable {
    /// The main listener.
    public let server: HTTPServer
    /// The `/metrics` listener, when it has its own address.
    public let metricsServer: HTTPServer?
    /// The engine behind the API.
    public let verifier: Verifier
    /// The counters `/metrics` shows.
    public let metrics: ServerMetrics
    /// The policy in force, channels narrowed to the configured senders.
    public let policy: Policy
    private let services: ServiceGroup
    private let requestLog: RequestLog
    private let keys: KeyRing
    /// Whether the server can sign approval tokens, which publishable keys need.
    private let takesPublishableKeys: Bool

    init(
        main: HTTPServer, metricsServer: HTTPServer?, verifier: Verifier, store: any VerificationStore,
        metrics: ServerMetrics, policy: Policy, keys: KeyRing, takesPublishableKeys: Bool,
        purgeInterval: Duration, requestLog: RequestLog, deliverer: EventDeliverer?,
        blockEvents: FraudReport.BlockEventPoster?
    ) {
        self.requestLog = requestLog
        self.keys = keys
        self.takesPublishableKeys = takesPublishableKeys
        self.server = main
        self.metricsServer = metricsServer
        self.verifier = verifier
        self.metrics = metrics
        self.policy = policy
        let listeners: [any ServerService] = [main] + (metricsServer.map { [$0] } ?? [])
        let purging = BackgroundLoop { await verifier.purgeExpired(every: purgeInterval) }
        // Events not delivered by the stop stay in the store's outbox for the next start.
        let delivering = deliverer.map { deliverer in BackgroundLoop { await deliverer.run() } }
        let posting: [any ServerService] = blockEvents.map { [$0] } ?? []
        self.services = ServiceGroup(stopping: [
            listeners + [purging],
            (delivering.map { [$0] } ?? []) + posting,
            [StoreService(store: store, verifier: verifier)],
        ])
    }

    /// Puts these API keys and publishable keys in force in place of the current ones, for every
    /// request checked from now on; requests already under way are untouched.
    ///
    /// - Throws: ``ServerStartError`` (and keeps the current keys) when no secret key is left, a
    ///   publishable key is malformed, or publishable keys are given to a server that signs no
    ///   approval tokens.
    public func replaceKeys(_ apiKeys: [String], publishable: [String: String]) throws(ServerStartError) {
        guard apiKeys.contains(where: { !$0.isEmpty }) else {
            throw ServerStartError("no API key is left: the API needs at least one")
        }
        try OTPServerApp.checkPublishable(publishable)
        if !publishable.isEmpty, !takesPublishableKeys {
            throw ServerStartError("publishable keys need a signer for their approval tokens")
        }
        keys.replace(with: APIKeys(apiKeys, publishable: publishable))
    }

    /// The port the API listens on.
    public var port: Int { server.port }

    /// The port `/metrics` listens on, when it has its own listener.
    public var metricsPort: Int? { metricsServer?.port }

    /// The base URL, such as `http://127.0.0.1:8080`.
    public var url: String {
        let host = server.configuration.host
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Stops accepting, lets requests in flight finish, closes the listeners and the purge loop,
    /// then the event delivery (a `fraud_blocked` event still waiting for a retry is dropped), then
    /// shuts the store down, and writes out the request log's buffered lines.
    public func stop(grace: Duration = .seconds(10)) async {
        await services.stop(grace: grace)
        requestLog.flush()
    }
}
