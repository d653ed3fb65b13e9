import Foundation
import OTPServer

/// Everything `otp serve` (or an embedding program) decides: listener, keys, store, senders, policy.
public struct ServerConfiguration: Sendable {
    /// Where verifications live.
    public enum Store: Sendable, Equatable {
        /// In this process only; gone at exit.
        case memory
        /// A SQLite file: the embedded default.
        case sqlite(path: String)
        /// A Redis server that several instances may share.
        case redis(host: String, port: Int, database: Int)
    }

    /// How codes reach people.
    public enum Sender: Sendable, Equatable {
        /// Development only: codes on standard error.
        case console
        /// Each message appended as a JSON line to a file.
        case outbox(path: String)
        /// Email through SMTP; the URL is `smtp://`, `smtp+starttls://` or `smtps://HOST[:PORT]`.
        case smtp(url: String)
        /// A signed JSON POST to a URL of your own; the secret is `OTP_WEBHOOK_SECRET`.
        case webhook(url: String)
        /// SMS through a Twilio-compatible API; the account comes from `OTP_TWILIO_*`.
        case twilio
    }

    /// The address to bind, an IPv4 or IPv6 literal.
    public var host: String
    /// The port; 0 picks a free one.
    public var port: Int
    /// The accepted API keys.
    public var apiKeys: [String]
    /// Where verifications live.
    public var store: Store
    /// The senders; each serves its channels (SMTP email, Twilio SMS, the others both), later ones first.
    public var senders: [Sender]
    /// The engine's numbers; its `channels` are narrowed to those the senders serve.
    public var policy: Policy
    /// Take client addresses from `X-Forwarded-For` (only behind a proxy you run).
    public var trustProxy: Bool
    /// The HMAC key file; `nil` means next to a SQLite store, or an in-memory key for the memory store.
    public var secretFile: String?
    /// A separate `HOST:PORT` listener for `/metrics` (and `/healthz`); `nil` serves them on the main one.
    public var metricsAddress: (host: String, port: Int)?
    /// Worker threads of the HTTP server.
    public var threads: Int
    /// Stalled connections are dropped after this long.
    public var connectionTimeout: Duration
    /// The least time a check takes to answer, whatever the answer.
    ///
    /// Right and wrong codes then take the same time, unless the server is so loaded that judging
    /// takes longer than the floor. `.zero` turns it off.
    public var checkFloor: Duration
    /// Where the one JSON line per request goes (standard error unless told otherwise).
    public var requestLog: RequestLog
    /// The wall clock of the engine; tests move it by hand.
    public var now: @Sendable () -> Date
    /// The environment that SMTP, webhook and Twilio settings are read from.
    public var environment: [String: String]

    /// The default ``checkFloor``: well above a check's own time on a busy server (a few
    /// milliseconds at p99), and well below what a person notices.
    public static let defaultCheckFloor: Duration = .milliseconds(50)

    /// Creates a configuration; the defaults are those of `otp serve`.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, apiKeys: [String] = [], store: Store = .memory,
        senders: [Sender] = [.console], policy: Policy = .default, trustProxy: Bool = false,
        secretFile: String? = nil, metricsAddress: (host: String, port: Int)? = nil, threads: Int = 2,
        connectionTimeout: Duration = .seconds(10), checkFloor: Duration = Self.defaultCheckFloor,
        requestLog: RequestLog = .standardError,
        now: @escaping @Sendable () -> Date = { Date() }, environment: [String: String] = [:]
    ) {
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.store = store
        self.senders = senders
        self.policy = policy
        self.trustProxy = trustProxy
        self.secretFile = secretFile
        self.metricsAddress = metricsAddress
        self.threads = threads
        self.connectionTimeout = connectionTimeout
        self.checkFloor = checkFloor
        self.requestLog = requestLog
        self.now = now
        self.environment = environment
    }
}
