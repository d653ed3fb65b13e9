import Foundation
import OTPEngine
import OTPHTTP

/// What `otp serve` was told: the HTTP front's configuration and, as text-level choices, the store,
/// the senders and where their secrets are.
///
/// ``ServeAssembly/start(_:)`` turns the choices into values (a store, senders, a key) once and
/// starts the server with them.
public struct ServeSettings: Sendable {
    /// The listener, keys, policy and HTTP limits.
    public var server: ServerConfiguration
    /// Where verifications live.
    public var store: StoreSpec
    /// The senders; each serves its channels (SMTP email, Twilio SMS, the others both), later ones first.
    public var senders: [SenderSpec]
    /// The HMAC key file; `nil` means next to a SQLite store, or an in-memory key for the memory store.
    public var secretFile: String?
    /// The environment that SMTP, webhook and Twilio settings are read from.
    public var environment: [String: String]
    /// The hosted verification page, or `nil` for none.
    public var hosted: HostedSpec?
    /// Ed25519 key files for approval tokens (hosted page and publishable keys).
    ///
    /// The first signs, all are published. Empty: one file beside a SQLite store, a key in memory with
    /// the memory store.
    public var signingKeyFiles: [String]
    /// The start guard, or `nil` for none.
    public var startGuard: StartGuardSpec?
    /// The endpoint lifecycle events are posted to (signed with `OTP_EVENTS_SECRET`), or `nil` for none.
    public var eventsURL: String?
    /// How event delivery is paced and retried.
    public var eventDelivery: EventDeliverySettings = EventDeliverySettings()
    /// Whether a store's schema older than this program's is migrated when the server starts.
    ///
    /// Without it such a store is refused, with what to run. A new, empty store is always set up.
    public var migrate = false
    /// How many replicas must hold each write to a Redis store before the call succeeds (`WAIT`).
    public var redisWaitReplicas = 0
    /// Whether a Redis store that keeps nothing across a restart is used anyway, authenticator
    /// factors and all.
    public var allowVolatileFactors = false
    /// Told a Redis store's warnings: once when its calls start failing and once when they work
    /// again, and when its persistence cannot be read; `nil` tells no one.
    public var storeReport: (@Sendable (String) -> Void)?
    /// The SMTP sender's From address (`--mail-from`); `nil` means `no-reply@` the domain.
    public var mailFrom: String?

    /// The host of the hosted page's public URL, which codes are bound to when no domain is given.
    public var hostedDomain: String? {
        hosted.flatMap { URL(string: $0.publicURL)?.host }
    }

    /// Creates settings; the defaults are those of `otp serve --dev` with a memory store.
    public init(
        server: ServerConfiguration = ServerConfiguration(), store: StoreSpec = .memory,
        senders: [SenderSpec] = [.console], secretFile: String? = nil, environment: [String: String] = [:],
        hosted: HostedSpec? = nil, signingKeyFiles: [String] = [], startGuard: StartGuardSpec? = nil,
        eventsURL: String? = nil
    ) {
        self.eventsURL = eventsURL
        self.hosted = hosted
        self.signingKeyFiles = signingKeyFiles
        self.startGuard = startGuard
        self.server = server
        self.store = store
        self.senders = senders
        self.secretFile = secretFile
        self.environment = environment
    }
}

/// The hosted page as `otp serve` is told it: its public address, where it may return, and the
/// files of the keys that sign approval tokens.
public struct HostedSpec: Sendable, Equatable {
    /// The server's public origin, such as `https://verify.example.com`.
    public var publicURL: String
    /// The origins return URLs may have.
    public var returnOrigins: [String]
    /// Ed25519 key files (32-byte seeds, mode 0600): the first signs, all are published.
    ///
    /// Empty: one file beside a SQLite store, a key in memory with the memory store.
    public var signingKeyFiles: [String]

    /// Creates the spec.
    public init(publicURL: String, returnOrigins: [String], signingKeyFiles: [String] = []) {
        self.publicURL = publicURL
        self.returnOrigins = returnOrigins
        self.signingKeyFiles = signingKeyFiles
    }
}

/// The start guard as `otp serve` is told it.
public struct StartGuardSpec: Sendable, Equatable {
    /// The endpoint; its requests are signed with `OTP_START_GUARD_SECRET`.
    public var url: String
    /// Whether starts go ahead when the guard does not answer.
    public var failOpen: Bool
    /// Whether starts by secret keys are judged too.
    public var appliesToSecretKeys: Bool

    /// Creates the spec.
    public init(url: String, failOpen: Bool = false, appliesToSecretKeys: Bool = false) {
        self.url = url
        self.failOpen = failOpen
        self.appliesToSecretKeys = appliesToSecretKeys
    }
}
