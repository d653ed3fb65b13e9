import Foundation

/// How an ``HTTPServer`` listens and what it allows.
public struct HTTPServerConfiguration: Sendable {
    /// The list-valued request fields whose lines are joined when sent more than once (RFC 9110,
    /// 5.3), where they are among ``headerNames``; other fields keep their first line.
    static let listHeaderNames = ["x-forwarded-for", "accept-language"]

    /// An IPv4 or IPv6 literal to bind, such as `127.0.0.1` or `::1`.
    public var host: String
    /// The port; 0 picks a free one (read it back from ``HTTPServer/port``).
    public var port: Int
    /// Worker threads that run connections; 2 suits a 2-core machine.
    public var threads: Int
    /// A connection that sends nothing for this long is dropped, and so is one whose request (head and body)
    /// has not arrived in full this long after the connection became ready for it.
    public var connectionTimeout: Duration
    /// Bodies over this many bytes are refused (the handler sees `bodyTooLarge`).
    public var bodyLimit: Int
    /// The per-connection memory pool of libmicrohttpd; request heads must fit.
    ///
    /// With the default 16 KiB a head of 12 KiB does. libmicrohttpd clears the pool at every
    /// request, so a larger one costs every request more.
    public var connectionMemoryLimit: Int
    /// The request headers kept for handlers (case-insensitive names).
    public var headerNames: [String]
    /// The query parameters kept for handlers (exact names); the path handlers see has no query.
    public var queryNames: [String]
    /// Open connections allowed at once, lowered to fit the process's open-file limit.
    public var maxConnections: Int
    /// Open connections allowed at once from one client address (the socket's peer); 0, the default, means
    /// no limit.
    ///
    /// Connections past it are closed as soon as they are accepted, so one host cannot take every slot of
    /// ``maxConnections``; 64 suits clients that connect directly. Behind a reverse proxy every connection
    /// comes from the proxy's address: leave it at 0 there, or set it above the proxy's own connection count.
    public var maxConnectionsPerAddress: Int
    /// The clock of every answer's `Date` header: the server's own, which its JSON times come from.
    public var clock: @Sendable () -> Date

    /// Creates a configuration; the defaults are those of `otp serve`.
    public init(
        host: String = ServerSettings.host, port: Int = ServerSettings.port.defaultValue,
        threads: Int = ServerSettings.threads.defaultValue,
        connectionTimeout: Duration = ServerSettings.connectionTimeout.defaultValue,
        bodyLimit: Int = 16 * 1024, connectionMemoryLimit: Int = 16 * 1024, headerNames: [String] = [],
        maxConnections: Int = 10_000,
        maxConnectionsPerAddress: Int = ServerSettings.maxConnectionsPerAddress.defaultValue,
        queryNames: [String] = [],
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clock = clock
        self.queryNames = queryNames
        self.host = host
        self.port = port
        self.threads = threads
        self.connectionTimeout = connectionTimeout
        self.bodyLimit = bodyLimit
        self.connectionMemoryLimit = connectionMemoryLimit
        self.headerNames = headerNames
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
    }
}

/// Why a server could not start.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}
