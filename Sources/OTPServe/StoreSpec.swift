import Foundation
import OTPHTTP

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
    /// A PostgreSQL database that several instances may share: a libpq URL without the store's own
    /// options, the schema of the tables (`nil`: the server's `search_path`), the connections in
    /// the pool, and the password when it comes from a file (else libpq reads `PGPASSWORD` or
    /// `~/.pgpass`).
    case postgres(url: String, schema: String? = nil, connections: Int = 4, password: String? = nil)
}

extension StoreSpec {
    /// Reads `memory`, `sqlite:PATH`, `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB][?prefix=P]`
    /// (port 6379, database 0, prefix `otp:`; user and password percent-decoded) or
    /// `postgres://USER@HOST[:PORT]/DB[?sslmode=…&schema=…]` (port 5432).
    public init(argument: String) throws(ServerStartError) {
        if argument == "memory" {
            self = .memory
        } else if argument.hasPrefix("sqlite:") {
            let path = String(argument.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw ServerStartError("a SQLite store is sqlite:PATH") }
            self = .sqlite(path: path)
        } else if argument.hasPrefix("redis://") {
            var rest = Substring(argument.dropFirst("redis://".count))
            var keyPrefix = "otp:"
            if let question = rest.firstIndex(of: "?") {
                let query = rest[rest.index(after: question)...]
                guard query.hasPrefix("prefix="), query.count > "prefix=".count,
                    query.dropFirst("prefix=".count).allSatisfy({
                        $0.isASCII && !$0.isWhitespace && $0 != "&"
                    })
                else {
                    throw ServerStartError("the only Redis store option is ?prefix=PREFIX, not ?\(query)")
                }
                keyPrefix = String(query.dropFirst("prefix=".count))
                rest = rest[..<question]
            }
            var database = 0
            if let slash = rest.firstIndex(of: "/") {
                let text = rest[rest.index(after: slash)...]
                guard let number = Int(text), (0...15).contains(number) else {
                    throw ServerStartError("the Redis database must be a number from 0 to 15, not \(text)")
                }
                database = number
                rest = rest[..<slash]
            }
            var username: String?
            var password: String?
            if let at = rest.lastIndex(of: "@") {
                let credentials = rest[..<at]
                rest = rest[rest.index(after: at)...]
                guard let colon = credentials.firstIndex(of: ":") else {
                    throw ServerStartError(
                        "Redis credentials are redis://:PASSWORD@HOST or redis://USER:PASSWORD@HOST")
                }
                let user = String(credentials[..<colon]).removingPercentEncoding ?? ""
                username = user.isEmpty ? nil : user
                password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
                guard let password, !password.isEmpty else {
                    throw ServerStartError("the Redis password after the colon is empty")
                }
            }
            let (host, port) = try Self.hostAndPort(rest, defaultPort: 6379)
            self = .redis(
                host: host, port: port, database: database, username: username, password: password,
                keyPrefix: keyPrefix)
        } else if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            self = try Self.postgres(argument)
        } else {
            throw ServerStartError(
                "the store is memory, sqlite:PATH, redis://HOST:PORT[/DB] or postgres://USER@HOST[:PORT]/DB, "
                    + "not \(argument)")
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
public enum SenderSpec: Sendable, Equatable {
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

extension SenderSpec {
    /// Reads `console`, `outbox:PATH`, `smtp://…` (`smtp+starttls://`, `smtps://`), `webhook:URL` or `twilio`.
    public init(argument: String) throws(ServerStartError) {
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
                "the sender is console, outbox:PATH, smtp://…, webhook:URL or twilio, not \(argument)")
        }
    }

    /// Whether this sender can send SMS that cost money per message (Twilio, or a webhook to a provider).
    public var sendsPaidSMS: Bool {
        switch self {
        case .twilio, .webhook: true
        case .console, .outbox, .smtp: false
        }
    }

    /// Whether this sender prints codes where anyone with the logs can read them.
    public var isForDevelopmentOnly: Bool { self == .console }
}
