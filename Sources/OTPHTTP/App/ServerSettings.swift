import Foundation

/// One setting of the server, declared once: its name, its default and its bounds.
///
/// ``ServerConfiguration`` and ``HTTPServerConfiguration`` take ``defaultValue`` as their
/// default and ``ServerSettings/problems(of:)`` judges a configuration by ``bounds``; `otp serve`
/// builds its option (`--NAME`, and `OTP_NAME` in the environment) from the same declaration.
/// A problem names the setting by ``name``, never by a command-line flag: the command line turns
/// the name into its flag.
public struct ServerSetting<Value: Comparable & Sendable>: Sendable {
    /// The setting's name in lower case with hyphens, such as `connection-timeout`.
    public let name: String
    /// The value when none is given.
    public let defaultValue: Value
    /// The values allowed.
    public let bounds: ClosedRange<Value>

    /// Declares a setting.
    public init(_ name: String, default defaultValue: Value, bounds: ClosedRange<Value>) {
        precondition(bounds.contains(defaultValue), "the default of \(name) is outside its bounds")
        self.name = name
        self.defaultValue = defaultValue
        self.bounds = bounds
    }

    /// A problem when `value` is outside ``bounds``, else `nil`.
    public func problem(_ value: Value, shown show: (Value) -> String = { "\($0)" }) -> ConfigurationProblem?
    {
        guard !bounds.contains(value) else { return nil }
        return ConfigurationProblem(
            setting: name,
            fact:
                "is \(show(value)); it must be from \(show(bounds.lowerBound)) to \(show(bounds.upperBound))")
    }
}

/// What is wrong with one setting, stated as a fact about the setting, not about a flag.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The setting's name, as in ``ServerSetting/name``, such as `public-url`.
    public var setting: String
    /// What is wrong, a phrase that follows the setting's name: `is 0; it must be from 1 to 64`.
    public var fact: String

    /// Creates a problem.
    public init(setting: String, fact: String) {
        self.setting = setting
        self.fact = fact
    }

    /// The setting's name and the fact: `threads is 0; it must be from 1 to 64`.
    public var description: String { "\(setting) \(fact)" }
}

/// The server's settings that have a default and bounds, each declared once.
public enum ServerSettings {
    /// The address to listen on.
    public static let host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public static let port = ServerSetting("port", default: 8080, bounds: 0...65535)
    /// The HTTP worker threads; 2 suits a 2-core machine.
    public static let threads = ServerSetting("threads", default: 2, bounds: 1...64)
    /// How long a connection may stall, and how long a request may take to arrive.
    public static let connectionTimeout = ServerSetting(
        "connection-timeout", default: Duration.seconds(10),
        bounds: Duration.seconds(1)...Duration.seconds(3600))
    /// The least time a check takes to answer, so a right and a wrong code take as long.
    ///
    /// Its default is well above a check's own time on a busy server, and well below what a person
    /// notices. Zero turns it off.
    public static let checkFloor = ServerSetting(
        // A check's own time on a busy server is a few milliseconds at p99.
        "check-floor", default: Duration.milliseconds(50), bounds: Duration.zero...Duration.seconds(5))
    /// Proxies of the operator's own in front of the server.
    public static let trustedProxies = ServerSetting("trust-proxy", default: 0, bounds: 0...16)
    /// Lifecycle events waiting in the store's outbox above which `/readyz` answers 503, so an
    /// orchestrator sends no traffic to a server whose events do not get out.
    public static let readyMaxEventBacklog = ServerSetting(
        "ready-max-event-backlog", default: 10_000, bounds: 1...100_000_000)
    /// Connections a PostgreSQL store's pool holds; a store call waits for a free one.
    public static let storeConnections = ServerSetting("store-connections", default: 4, bounds: 1...256)
    /// Open connections one client address may hold; 0 means no limit.
    public static let maxConnectionsPerAddress = ServerSetting(
        "max-connections-per-address", default: 0, bounds: 0...100_000)

    /// What is wrong with the bounded settings of `configuration`; empty when each is within its
    /// bounds.
    public static func problems(of configuration: ServerConfiguration) -> [ConfigurationProblem] {
        let milliseconds = { (duration: Duration) in "\(Int(duration / .milliseconds(1))) ms" }
        return [
            port.problem(configuration.port),
            threads.problem(configuration.threads),
            connectionTimeout.problem(configuration.connectionTimeout, shown: milliseconds),
            checkFloor.problem(configuration.checkFloor, shown: milliseconds),
            trustedProxies.problem(configuration.trustedProxies),
            maxConnectionsPerAddress.problem(configuration.maxConnectionsPerAddress),
            readyMaxEventBacklog.problem(configuration.readyMaxEventBacklog),
        ].compactMap { $0 }
    }
}
