import CMicroHTTPD
import Foundation
import OTPCore

/// An HTTP/1.1 server on libmicrohttpd: a thread pool on epoll, async handlers by suspend and resume.
///
/// It reads bodies up to a limit (a chunked one is refused as soon as it passes it), drops connections that
/// stall or take longer than the connection timeout to send a request, limits the connections one address
/// may hold, reports every finished request to an observer, and stops gracefully: it stops accepting, lets
/// requests in flight finish, then closes.
public final class HTTPServer: Sendable {
    /// The configuration it was started with.
    public let configuration: HTTPServerConfiguration
    /// The port it listens on (the one picked when the configuration asked for 0).
    public let port: Int
    private let daemon: DaemonHandle
    private let core: ServerCore
    private let retainedCore: Unmanaged<ServerCore>
    /// Cuts off connections whose request is late, ten times per timeout (at most once a second).
    private let watchdog: Watchdog

    /// Starts listening; throws when the address is not a literal, the port cannot be bound, or the
    /// connections per address are negative.
    public init(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler,
        observer: @escaping @Sendable (CompletedRequest) -> Void = { _ in }
    ) throws(HTTPServerError) {
        guard (0...65535).contains(configuration.port) else {
            throw HTTPServerError("the port must be from 0 to 65535")
        }
        guard configuration.maxConnectionsPerAddress >= 0 else {
            throw HTTPServerError("the connections per address must be 0 (no limit) or more")
        }
        let timeout = max(1, Int(configuration.connectionTimeout.components.seconds))
        let core = ServerCore(
            handler: handler, observer: observer, bodyLimit: configuration.bodyLimit,
            headerNames: configuration.headerNames, queryNames: configuration.queryNames,
            requestTimeout: .seconds(timeout), clock: configuration.clock)
        let retained = Unmanaged.passRetained(core)
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ERROR_LOG.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let started = otp_mhd_start(
            UInt32(flags), configuration.host, UInt16(configuration.port), otpAcceptPolicy, otpAccessHandler,
            retained.toOpaque(), otpRequestCompleted, otpConnectionNotified, retained.toOpaque(),
            UInt32(max(1, configuration.threads)), UInt32(timeout), configuration.connectionMemoryLimit,
            UInt32(Self.connectionLimit(configuration)),
            UInt32(clamping: configuration.maxConnectionsPerAddress))
        guard let started else {
            retained.release()
            throw HTTPServerError(
                "cannot listen on \(configuration.host):\(configuration.port) "
                    + "(the host must be an IP address, the port free)")
        }
        self.configuration = configuration
        self.core = core
        self.retainedCore = retained
        self.daemon = DaemonHandle(raw: started)
        self.port = Int(otp_mhd_bound_port(started))
        let tick = min(.seconds(1), max(.milliseconds(50), Duration.seconds(timeout) / 10))
        self.watchdog = Watchdog(core: core, tick: tick)
    }

    /// The configured connection cap, lowered to leave 64 descriptors of the open-file limit for the rest
    /// of the process (stores, senders, logs).
    static func connectionLimit(_ configuration: HTTPServerConfiguration) -> Int {
        var limit = rlimit()
        let available = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(limit.rlim_cur) : 1024
        return max(16, min(configuration.maxConnections, available - 64))
    }

    /// Requests started and not yet finished.
    public var requestsInFlight: Int { core.counts.inFlight }

    /// The open connections whose requests are timed against the connection timeout.
    var timedConnections: Int { core.timedConnections }

    /// Stops accepting connections, waits for requests in flight, then closes every connection.
    ///
    /// Requests waiting on a handler's task always finish; others (a client still sending its body)
    /// get until `grace` has passed.
    public func stop(grace: Duration = .seconds(10)) async {
        guard daemon.claimStop() else { return }
        core.beginStopping()
        // New connections are refused from here on by the accept policy (accepted and closed at
        // once). libmicrohttpd's own way, MHD_quiesce_daemon, races its epoll threads on removing
        // the listener from their epoll sets, and the loser aborts the whole process.
        let deadline = ContinuousClock.now.advanced(by: grace)
        while true {
            let (inFlight, suspended) = core.counts
            if inFlight == 0 || (suspended == 0 && ContinuousClock.now >= deadline) { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        core.daemonWillStop()
        MHD_stop_daemon(daemon.raw)
        watchdog.stop()
        core.answerTimer.stop()
        retainedCore.release()
    }

    deinit {
        // A server dropped without `stop()` closes at once.
        watchdog.stop()
        if daemon.claimStop() {
            core.daemonWillStop()
            MHD_stop_daemon(daemon.raw)
            core.answerTimer.stop()
            retainedCore.release()
        }
    }
}

/// The daemon pointer, stopped once; libmicrohttpd's calls on it are thread-safe.
private final class DaemonHandle: @unchecked Sendable {
    let raw: OpaquePointer
    private let stopped = Locked(false)

    init(raw: OpaquePointer) {
        self.raw = raw
    }

    /// Whether this call is the one that stops the daemon.
    func claimStop() -> Bool {
        stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
    }
}
