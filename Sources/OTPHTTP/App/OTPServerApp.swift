import Foundation
import OTPCore
import OTPDelivery
import OTPServer

/// Puts a whole verification server together from a ``ServerConfiguration`` and starts it.
///
/// `otp serve` runs it until a signal; `otp demo` and tests run it inside their own process.
public enum OTPServerApp {
    /// Opens the store, builds the senders and the engine, and starts listening.
    public static func start(
        _ configuration: ServerConfiguration
    ) async throws(ServerStartError) -> RunningServer {
        guard !configuration.apiKeys.filter({ !$0.isEmpty }).isEmpty else {
            throw ServerStartError("no API key: give --api-key (or OTP_API_KEYS), or run with --dev")
        }
        let metrics = ServerMetrics()
        let router = try ServerAssembly.router(for: configuration.senders, configuration: configuration)
        var policy = configuration.policy
        policy.channels = policy.channels.intersection(router.channels)
        let problems = policy.problems()
        guard problems.isEmpty else { throw ServerStartError(problems.joined(separator: " ")) }
        let secret = try ServerAssembly.secret(for: configuration)
        let store = try await StoreFactory.open(configuration.store)
        let verifier = Verifier(
            store: store, sender: MetricsSender(base: router, metrics: metrics), policy: policy,
            secret: secret,
            now: configuration.now)
        let log = configuration.requestLog
        let observer: @Sendable (CompletedRequest) -> Void = { request in
            metrics.recordRequest(
                route: request.route, method: request.method, status: request.status,
                duration: request.duration)
            log.record(request)
        }
        let keys = APIKeys(configuration.apiKeys)
        let main: HTTPServer
        var side: HTTPServer?
        do throws(HTTPServerError) {
            main = try HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: configuration.host, port: configuration.port, threads: configuration.threads,
                    connectionTimeout: configuration.connectionTimeout, headerNames: APIHandler.headerNames),
                handler: APIHandler(
                    verifier: verifier, keys: keys, trustProxy: configuration.trustProxy, metrics: metrics,
                    servesMetrics: configuration.metricsAddress == nil, checkFloor: configuration.checkFloor),
                observer: observer)
            if let address = configuration.metricsAddress {
                side = try HTTPServer(
                    configuration: HTTPServerConfiguration(
                        host: address.host, port: address.port, threads: 1,
                        connectionTimeout: configuration.connectionTimeout),
                    handler: APIHandler(
                        verifier: verifier, keys: keys, metrics: metrics, servesMetrics: true,
                        checkFloor: configuration.checkFloor))
            }
        } catch {
            throw ServerStartError(error.description)
        }
        return RunningServer(
            main: main, metricsServer: side, verifier: verifier, metrics: metrics, policy: policy)
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
    private let purging: Task<Void, Never>

    init(
        main: HTTPServer, metricsServer: HTTPServer?, verifier: Verifier, metrics: ServerMetrics,
        policy: Policy
    ) {
        self.server = main
        self.metricsServer = metricsServer
        self.verifier = verifier
        self.metrics = metrics
        self.policy = policy
        self.purging = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(60))
                if Task.isCancelled { break }
                _ = try? await verifier.purgeExpired()
            }
        }
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

    /// Stops accepting, lets requests in flight finish, then closes.
    public func stop(grace: Duration = .seconds(10)) async {
        purging.cancel()
        async let side: Void = metricsServer?.stop(grace: grace) ?? ()
        await server.stop(grace: grace)
        await side
    }
}
