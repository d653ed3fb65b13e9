import Foundation
import OTPEngine

/// How the HTTP front listens and answers: address, keys, policy, limits of the HTTP layer, logs.
///
/// The store, the senders and the HMAC key are not part of it: they are values an embedding
/// program makes and hands to ``OTPServerApp/start(_:store:senders:secret:)``, so any
/// ``VerificationStore`` and any ``CodeSender`` will do.
public struct ServerConfiguration: Sendable {
    /// The address to bind, an IPv4 or IPv6 literal.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The accepted API keys.
    public var apiKeys: [String]
    /// The engine's numbers; its `channels` are narrowed to those the senders serve.
    public var policy: Policy
    /// How many proxies of your own stand in front.
    ///
    /// The client address is the `X-Forwarded-For` entry that many places from the right; 0 (the
    /// default) uses the socket's peer.
    public var trustedProxies: Int
    /// A separate `HOST:PORT` listener for `/metrics` (and `/healthz`); `nil` serves them on the main one.
    public var metricsAddress: (host: String, port: Int)?
    /// Worker threads of the HTTP server.
    public var threads: Int
    /// Open connections one client address (the socket's peer) may hold; 0 means no limit.
    ///
    /// Behind a reverse proxy every connection comes from the proxy: leave it at 0 there.
    public var maxConnectionsPerAddress: Int
    /// Stalled connections are dropped after this long.
    public var connectionTimeout: Duration
    /// The least time a check takes to answer, whatever the answer.
    ///
    /// Right and wrong codes then take the same time, unless the server is so loaded that judging
    /// takes longer than the floor. `.zero` turns it off.
    public var checkFloor: Duration
    /// Events waiting in the outbox above which `/readyz` answers 503 (with ``events`` only).
    public var readyMaxEventBacklog: Int = ServerSettings.readyMaxEventBacklog.defaultValue
    /// How often expired verifications, keys and counters are purged from the store.
    public var purgeInterval: Duration
    /// Where the one JSON line per request goes (standard error unless told otherwise).
    public var requestLog: RequestLog
    /// The wall clock of the engine; tests move it by hand.
    public var now: @Sendable () -> Date
    /// The hosted verification page, or `nil` for none: starts may then ask for a `hostedUrl`.
    public var hosted: HostedPages?
    /// Publishable keys by name: keys that live in apps and pages, which may start, see, check and
    /// resend only their own verifications, and cannot cancel.
    public var publishableKeys: [String: String]
    /// Signs approval tokens for publishable keys' approving checks; `nil` uses the hosted page's.
    public var approvalTokens: (any ApprovalTokenIssuing)?
    /// Judges starts before a code is paid for, or `nil` for none.
    public var startGuard: StartGuardSettings?
    /// Delivers lifecycle events from the store's outbox, or `nil` for none; the store must be a
    /// ``LifecycleEventStore`` opened to record events.
    public var events: EventsConfiguration?
    /// Reads the phone numbers starts name: ``E164SyntaxParser`` (the syntax alone) unless told
    /// otherwise; `otp serve` always uses libphonenumber (`OTPPhoneNumbers`).
    public var phoneNumbers: any PhoneNumberParser = E164SyntaxParser()

    /// Creates a configuration; the defaults and bounds are those of ``ServerSettings``, which
    /// `otp serve` reads too.
    public init(
        host: String = ServerSettings.host, port: Int = ServerSettings.port.defaultValue,
        apiKeys: [String] = [],
        policy: Policy = .default, trustedProxies: Int = ServerSettings.trustedProxies.defaultValue,
        metricsAddress: (host: String, port: Int)? = nil, threads: Int = ServerSettings.threads.defaultValue,
        maxConnectionsPerAddress: Int = ServerSettings.maxConnectionsPerAddress.defaultValue,
        connectionTimeout: Duration = ServerSettings.connectionTimeout.defaultValue,
        checkFloor: Duration = ServerSettings.checkFloor.defaultValue,
        purgeInterval: Duration = .seconds(60), requestLog: RequestLog = .standardError,
        now: @escaping @Sendable () -> Date = { Date() }, hosted: HostedPages? = nil,
        publishableKeys: [String: String] = [:], approvalTokens: (any ApprovalTokenIssuing)? = nil,
        startGuard: StartGuardSettings? = nil
    ) {
        self.publishableKeys = publishableKeys
        self.approvalTokens = approvalTokens
        self.startGuard = startGuard
        self.hosted = hosted
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.policy = policy
        self.trustedProxies = trustedProxies
        self.metricsAddress = metricsAddress
        self.threads = threads
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.connectionTimeout = connectionTimeout
        self.checkFloor = checkFloor
        self.purgeInterval = purgeInterval
        self.requestLog = requestLog
        self.now = now
    }
}

/// Where lifecycle events go and how their delivery is paced.
public struct EventsConfiguration: Sendable {
    /// Sends one event; `true` when the endpoint took it.
    public var deliver: @Sendable (LifecycleEvent) async -> Bool
    /// Retries, leases and batches.
    public var settings: EventDeliverySettings

    /// Creates the configuration.
    public init(
        settings: EventDeliverySettings = EventDeliverySettings(),
        deliver: @escaping @Sendable (LifecycleEvent) async -> Bool
    ) {
        self.deliver = deliver
        self.settings = settings
    }
}
