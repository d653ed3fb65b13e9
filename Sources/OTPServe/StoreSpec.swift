import Foundation
import OTPCore
import OTPHTTP
import OTPRedis

/// Where verifications live, as `otp serve --store` names it.
public enum StoreSpec: Sendable, Equatable {
    /// In this process only; gone at exit.
    case memory
    /// A SQLite file: the embedded default.
    case sqlite(path: String)
    /// A Redis server that several instances may share, with the ACL user and password to `AUTH` with,
    /// and the prefix of every key (several deployments can share a database under different prefixes).
    case redis(
        host: String, port: Int, database: Int, username: String? = nil, password: String? = nil,
        keyPrefix: String = "otp:")
    /// The Redis primary that Redis Sentinel names, followed through failovers.
    case redisSentinel(RedisSentinelSpec)
    /// A PostgreSQL database that several instances may share: a libpq URL without the store's own
    /// options, the schema of the tables (`nil`: the server's `search_path`), the connections in
    /// the pool, and the password when it comes from a file (else libpq reads `PGPASSWORD` or
    /// `~/.pgpass`).
    case postgres(url: String, schema: String? = nil, connections: Int = 4, password: String? = nil)
}

/// A Redis store found through Redis Sentinel, as `redis-sentinel://` names it.
public struct RedisSentinelSpec: Sendable, Equatable {
    /// The sentinels to ask, in order.
    public var sentinels: [RedisAddress]
    /// The name the sentinels monitor the primary under.
    public var primaryName: String
    /// The database to `SELECT`.
    public var database: Int
    /// The ACL user to `AUTH` as on the primary.
    public var username: String?
    /// The password to `AUTH` with on the primary.
    public var password: String?
    /// The start of every key.
    public var keyPrefix: String

    /// Creates the spec.
    public init(
        sentinels: [RedisAddress], primaryName: String, database: Int = 0, username: String? = nil,
        password: String? = nil, keyPrefix: String = "otp:"
    ) {
        self.sentinels = sentinels
        self.primaryName = primaryName
        self.database = database
        self.username = username
        self.password = password
        self.keyPrefix = keyPrefix
    }
}

extension StoreSpec {
    /// Reads `memory`, `sqlite:PATH`, `redis://[USER@|[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=P]`
    /// (port 6379, database 0, prefix `otp:`; user and password percent-decoded),
    /// `redis-sentinel://…` (``sentinel(_:)``) or `postgres://USER@HOST[:PORT]/DB[?sslmode=…&schema=…]`
    /// (port 5432).
    public init(argument: String) throws(ServerStartError) {
        if argument == "memory" {
            self = .memory
        } else if argument.hasPrefix("sqlite:") {
            let path = String(argument.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ServerStartError("a SQLite store is sqlite:PATH") }
            self = .sqlite(path: path)
        } else if argument.hasPrefix("redis://") {
            var rest = Substring(argument.dropFirst("redis://".count))
            let keyPrefix = try Self.keyPrefix(&rest)
            var database = 0
            if let slash = rest.firstIndex(of: "/") {
                database = try Self.database(rest[rest.index(after: slash)...])
                rest = rest[..<slash]
            }
            let (username, password) = try Self.credentials(&rest)
            let (host, port) = try Self.hostAndPort(rest, defaultPort: 6379)
            self = .redis(
                host: host, port: port, database: database, username: username, password: password,
                keyPrefix: keyPrefix)
        } else if argument.hasPrefix("redis-sentinel://") {
            self = .redisSentinel(try Self.sentinel(Substring(argument.dropFirst("redis-sentinel://".count))))
        } else if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            self = try Self.postgres(argument)
        } else {
            throw ServerStartError(
                "the store is memory, sqlite:PATH, redis://HOST:PORT[/DB], "
                    + "redis-sentinel://HOST:PORT[,HOST:PORT…]/PRIMARY[/DB] or postgres://USER@HOST[:PORT]/DB, "
                    + "not \(argument)")
        }
    }

    /// Reads what follows `redis-sentinel://`: `[USER@]HOST[:PORT][,HOST[:PORT]…]/PRIMARY[/DB]`
    /// and `?prefix=P` (sentinel port 26379).
    static func sentinel(_ text: Substring) throws(ServerStartError) -> RedisSentinelSpec {
        var rest = text
        let keyPrefix = try keyPrefix(&rest)
        guard let slash = rest.firstIndex(of: "/") else {
            throw ServerStartError(
                "a Sentinel store is redis-sentinel://HOST:PORT[,HOST:PORT…]/PRIMARY[/DB]: the primary's name is missing"
            )
        }
        let path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
        rest = rest[..<slash]
        guard path.count <= 2, let name = path.first, !name.isEmpty,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
        else {
            throw ServerStartError(
                "the Sentinel primary's name is letters, digits, - _ or ., then /DB at most, not \(path.joined(separator: "/"))"
            )
        }
        let database = path.count == 2 ? try Self.database(path[1]) : 0
        let (username, password) = try credentials(&rest)
        var sentinels: [RedisAddress] = []
        for item in rest.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else {
                throw ServerStartError("a Sentinel store lists an empty sentinel address")
            }
            let (host, port) = try hostAndPort(item, defaultPort: 26379)
            sentinels.append(RedisAddress(host: host, port: port))
        }
        return RedisSentinelSpec(
            sentinels: sentinels, primaryName: String(name), database: database, username: username,
            password: password, keyPrefix: keyPrefix)
    }

    /// Takes `?prefix=P` off the end of a Redis URL: the key prefix, `otp:` when none is given.
    private static func keyPrefix(_ rest: inout Substring) throws(ServerStartError) -> String {
        guard let question = rest.firstIndex(of: "?") else { return "otp:" }
        let query = rest[rest.index(after: question)...]
        guard query.hasPrefix("prefix="), query.count > "prefix=".count,
            query.dropFirst("prefix=".count).allSatisfy({
                $0.isASCII && !$0.isWhitespace && $0 != "&"
            })
        else {
            throw ServerStartError("the only Redis store option is ?prefix=PREFIX, not ?\(query)")
        }
        rest = rest[..<question]
        return String(query.dropFirst("prefix=".count))
    }

    /// A database number from 0 to 15.
    private static func database(_ text: Substring) throws(ServerStartError) -> Int {
        guard let number = Int(text), (0...15).contains(number) else {
            throw ServerStartError("the Redis database must be a number from 0 to 15, not \(text)")
        }
        return number
    }

    /// Takes `USER@` or `[USER]:PASSWORD@` off the front, percent-decoded (a user's password may
    /// come from elsewhere).
    private static func credentials(
        _ rest: inout Substring
    ) throws(ServerStartError) -> (username: String?, password: String?) {
        guard let at = rest.lastIndex(of: "@") else { return (nil, nil) }
        let credentials = rest[..<at]
        rest = rest[rest.index(after: at)...]
        guard let colon = credentials.firstIndex(of: ":") else {
            guard let user = String(credentials).removingPercentEncoding, !user.isEmpty else {
                throw ServerStartError(
                    "Redis credentials are USER@HOST, :PASSWORD@HOST or USER:PASSWORD@HOST")
            }
            return (user, nil)
        }
        let user = String(credentials[..<colon]).removingPercentEncoding ?? ""
        let password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
        guard let password, !password.isEmpty else {
            throw ServerStartError("the Redis password after the colon is empty")
        }
        return (user.isEmpty ? nil : user, password)
    }

    /// Whether the argument carried a password, which then shows in the process list.
    public var hasPassword: Bool {
        switch self {
        case .redis(_, _, _, _, let password, _): password != nil
        case .redisSentinel(let spec): spec.password != nil
        // A PostgreSQL URL's password is judged on the URL itself (holdsPassword).
        case .memory, .sqlite, .postgres: false
        }
    }

    /// Whether an ACL user is named (`USER@`) with no password to `AUTH` with.
    public var lacksUserPassword: Bool {
        switch self {
        case .redis(_, _, _, let username, let password, _): username != nil && password == nil
        case .redisSentinel(let spec): spec.username != nil && spec.password == nil
        case .memory, .sqlite, .postgres: false
        }
    }

    /// Whether the store takes a password: Redis, directly or through Sentinel, and PostgreSQL.
    public var takesPassword: Bool {
        switch self {
        case .redis, .redisSentinel, .postgres: true
        case .memory, .sqlite: false
        }
    }

    /// Whether this is a Redis store, reached directly or through Sentinel.
    public var isRedis: Bool {
        switch self {
        case .redis, .redisSentinel: true
        case .memory, .sqlite, .postgres: false
        }
    }

    /// The same store with the password to `AUTH` with replaced; other stores are unchanged.
    public func password(_ password: String) -> StoreSpec {
        switch self {
        case .redis(let host, let port, let database, let username, _, let keyPrefix):
            return .redis(
                host: host, port: port, database: database, username: username, password: password,
                keyPrefix: keyPrefix)
        case .redisSentinel(var spec):
            spec.password = password
            return .redisSentinel(spec)
        case .postgres(let url, let schema, let connections, _):
            return .postgres(url: url, schema: schema, connections: connections, password: password)
        case .memory, .sqlite:
            return self
        }
    }

    /// The URL options a PostgreSQL store passes on to libpq.
    static let postgresOptions: Set<String> = [
        "sslmode", "sslrootcert", "sslcert", "sslkey", "sslcrl", "application_name", "connect_timeout",
        "target_session_attrs",
    ]

    /// The values `sslmode` takes.
    static let sslModes: Set<String> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// Reads `postgres://[USER[:PASSWORD]@]HOST[:PORT]/DB[?sslmode=…&schema=…]`.
    static func postgres(_ argument: String) throws(ServerStartError) -> StoreSpec {
        let scheme = argument.hasPrefix("postgresql://") ? "postgresql://" : "postgres://"
        var rest = Substring(argument.dropFirst(scheme.count))
        var kept: [String] = []
        var schema: String?
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(
                separator: "&", omittingEmptySubsequences: false)
            {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[1].isEmpty else {
                    throw ServerStartError("a PostgreSQL store option is NAME=VALUE, not \(pair)")
                }
                let (name, value) = (String(parts[0]), String(parts[1]))
                if name == "schema" {
                    guard Self.isPlainIdentifier(value) else {
                        throw ServerStartError(
                            "the PostgreSQL schema is letters, digits and underscores (at most 63), not \(value)"
                        )
                    }
                    schema = value
                    continue
                }
                guard postgresOptions.contains(name) else {
                    throw ServerStartError(
                        "the PostgreSQL store options are schema and "
                            + postgresOptions.sorted().joined(separator: ", ") + ", not \(name)")
                }
                if name == "sslmode", !sslModes.contains(value) {
                    throw ServerStartError(
                        "sslmode is " + sslModes.sorted().joined(separator: ", ") + ", not \(value)")
                }
                kept.append(String(pair))
            }
            rest = rest[..<question]
        }
        guard let slash = rest.firstIndex(of: "/"), rest.index(after: slash) < rest.endIndex else {
            throw ServerStartError("a PostgreSQL store names its database: postgres://USER@HOST[:PORT]/DB")
        }
        let database = rest[rest.index(after: slash)...]
        guard !database.contains("/") else { throw ServerStartError("\(database) is not a database name") }
        var address = rest[..<slash]
        if let at = address.lastIndex(of: "@") {
            let credentials = address[..<at]
            guard !credentials.isEmpty, !credentials.hasPrefix(":") else {
                throw ServerStartError("the PostgreSQL user before @ is empty")
            }
            address = address[address.index(after: at)...]
        }
        _ = try hostAndPort(address, defaultPort: 5432)
        let base = scheme + rest
        return .postgres(
            url: kept.isEmpty ? String(base) : base + "?" + kept.joined(separator: "&"), schema: schema)
    }

    /// Whether the URL of a PostgreSQL store holds a password (it shows in the process list).
    public var holdsPassword: Bool {
        guard case .postgres(let url, _, _, _) = self else { return false }
        let rest = url.drop(while: { $0 != "/" }).dropFirst(2)
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" })
        guard let at = authority.lastIndex(of: "@") else { return false }
        return authority[..<at].contains(":")
    }

    /// The name of a store several servers share, for messages: `Redis` or `PostgreSQL`.
    var sharedName: String {
        if case .postgres = self { return "PostgreSQL" }
        return "Redis"
    }

    /// Whether a name can be a schema without quoting.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.first, name.utf8.count <= 63, first == "_" || (first.isASCII && first.isLetter)
        else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }

    /// Splits `HOST[:PORT]`, brackets allowed around IPv6 literals.
    static func hostAndPort(_ text: Substring, defaultPort: Int) throws(ServerStartError) -> (String, Int) {
        var host = text
        var port = defaultPort
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else {
                    throw ServerStartError("\(text) is not HOST:PORT")
                }
                port = number
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]) else {
                throw ServerStartError("\(text) is not HOST:PORT")
            }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port) else {
            throw ServerStartError("\(text) is not HOST:PORT with a port from 1 to 65535")
        }
        return (String(host), port)
    }
}

/// How codes reach people, as `otp serve --sender` names it.
public indirect enum SenderSpec: Sendable, Hashable {
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
    /// A sender for one channel only, as `--sender sms=…` or `--sender email=…` names it.
    case only(Channel, SenderSpec)
}

extension SenderSpec {
    /// Reads `console`, `outbox:PATH`, `smtp://…` (`smtp+starttls://`, `smtps://`), `webhook:URL` or
    /// `twilio`, each optionally for one channel: `sms=twilio`, `email=smtp://…`.
    public init(argument: String) throws(ServerStartError) {
        for channel in [Channel.sms, .email] where argument.hasPrefix(channel.rawValue + "=") {
            let sender = try Self(unprefixed: String(argument.dropFirst(channel.rawValue.count + 1)))
            guard sender.channels.contains(channel) else {
                throw ServerStartError(
                    "the \(sender.name) sender cannot deliver \(channel.rawValue): it sends "
                        + sender.channels.map(\.rawValue).joined(separator: " and ") + " only")
            }
            self = .only(channel, sender)
            return
        }
        self = try Self(unprefixed: argument)
    }

    private init(unprefixed argument: String) throws(ServerStartError) {
        if argument == "console" {
            self = .console
        } else if argument == "twilio" {
            self = .twilio
        } else if argument.hasPrefix("outbox:") {
            let path = String(argument.dropFirst("outbox:".count))
            guard !path.isEmpty else { throw ServerStartError("an outbox sender is outbox:PATH") }
            self = .outbox(path: path)
        } else if argument.hasPrefix("smtp://") || argument.hasPrefix("smtps://")
            || argument.hasPrefix("smtp+starttls://")
        {
            self = .smtp(url: argument)
        } else if argument.hasPrefix("webhook:") {
            let url = String(argument.dropFirst("webhook:".count))
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ServerStartError("a webhook sender is webhook:http(s)://…")
            }
            self = .webhook(url: url)
        } else {
            throw ServerStartError(
                "the sender is [sms=|email=]console, outbox:PATH, smtp://…, webhook:URL or twilio, not \(argument)"
            )
        }
    }

    /// The channels this sender delivers: SMTP email, Twilio SMS, the others both (unless named for one).
    public var channels: [Channel] {
        switch self {
        case .smtp: [.email]
        case .twilio: [.sms]
        case .console, .outbox, .webhook: [.sms, .email]
        case .only(let channel, _): [channel]
        }
    }

    /// The sender itself, without a channel it was named for.
    public var base: SenderSpec {
        if case .only(_, let sender) = self { return sender.base }
        return self
    }

    /// The sender's kind, for messages: `console`, `outbox`, `smtp`, `webhook` or `twilio` (no path,
    /// URL or credential).
    public var name: String {
        switch self {
        case .console: "console"
        case .outbox: "outbox"
        case .smtp: "smtp"
        case .webhook: "webhook"
        case .twilio: "twilio"
        case .only(_, let sender): sender.name
        }
    }

    /// The one sender of each channel, or an error naming the channel two senders claim.
    ///
    /// A sender delivers the channels it names or, unnamed, all it can (``channels``); a channel
    /// two senders would deliver is refused rather than given to one of them.
    public static func routes(_ senders: [SenderSpec]) throws(ServerStartError) -> [Channel: SenderSpec] {
        var routes: [Channel: SenderSpec] = [:]
        for sender in senders {
            for channel in sender.channels {
                if let earlier = routes[channel] {
                    throw ServerStartError(
                        "two senders for \(channel.rawValue) (\(earlier.name) and \(sender.name)): give each channel "
                            + "one, as --sender sms=twilio --sender email=smtp://HOST")
                }
                routes[channel] = sender.base
            }
        }
        return routes
    }

    /// Whether this sender can send SMS that cost money per message (Twilio, or a webhook to a provider).
    public var sendsPaidSMS: Bool {
        switch self {
        case .twilio, .webhook: true
        case .console, .outbox, .smtp: false
        case .only(let channel, let sender): channel == .sms && sender.sendsPaidSMS
        }
    }

    /// Whether this sender prints codes where anyone with the logs can read them.
    public var isForDevelopmentOnly: Bool { base == .console }
}
