import Foundation
import OTPEngine

/// Where and how the SMTP sender hands email over: server, transport security, account, sender address.
public struct SMTPConfiguration: Sendable, Equatable {
    /// How the connection to the SMTP server is protected.
    public enum Security: String, Sendable, Equatable {
        /// No encryption (a local relay).
        case none
        /// A plain connection upgraded with STARTTLS; the upgrade is required.
        case startTLS
        /// TLS from the first byte (SMTPS).
        case tls
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The transport security.
    public var security: Security
    /// The account name, when the server wants one.
    public var username: String?
    /// The account password.
    public var password: String?
    /// The sender address, such as `no-reply@example.com`.
    public var from: String
    /// The sender's display name, such as the app's name.
    public var fromName: String?
    /// A PEM file of certificate authorities to trust instead of the system's.
    public var caFile: String?
    /// How long one delivery may take, connection included.
    public var timeout: Duration

    /// Creates a configuration from its parts.
    public init(
        host: String, port: Int, security: Security, username: String? = nil, password: String? = nil,
        from: String, fromName: String? = nil, caFile: String? = nil, timeout: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
        self.fromName = fromName
        self.caFile = caFile
        self.timeout = timeout
    }

    /// Reads a server URL and takes the account and sender from the environment.
    ///
    /// The URL is `smtp://HOST[:PORT]` (no encryption, port 25), `smtp+starttls://HOST[:PORT]`
    /// (STARTTLS required, port 587) or `smtps://HOST[:PORT]` (TLS, port 465). The environment gives
    /// `OTP_SMTP_USERNAME`, `OTP_SMTP_PASSWORD` and `OTP_SMTP_CA_FILE`. The From address is `from`,
    /// else `OTP_SMTP_FROM`, else `no-reply@<domain>`; with none of them the configuration is refused.
    public init(
        url: String, environment: [String: String], domain: String? = nil, fromName: String? = nil,
        from: String? = nil
    ) throws(DeliveryError) {
        let schemes: [(String, Security, Int)] = [
            ("smtp+starttls://", .startTLS, 587), ("smtps://", .tls, 465), ("smtp://", .none, 25),
        ]
        guard let (prefix, security, defaultPort) = schemes.first(where: { url.hasPrefix($0.0) }) else {
            throw DeliveryError("an SMTP URL starts with smtp://, smtp+starttls:// or smtps://")
        }
        var authority = String(url.dropFirst(prefix.count))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else {
            throw DeliveryError("an SMTP URL is scheme://HOST[:PORT]; credentials come from the environment")
        }
        var host = authority
        var port = defaultPort
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let parsed = Int(authority[authority.index(after: colon)...]), (1...65535).contains(parsed)
            else {
                throw DeliveryError("the SMTP port is not a number from 1 to 65535")
            }
            host = String(authority[..<colon])
            port = parsed
        }
        guard !host.isEmpty else { throw DeliveryError("the SMTP URL has no host") }
        let given = from ?? environment["OTP_SMTP_FROM"].flatMap { $0.isEmpty ? nil : $0 }
        guard let from = given ?? domain.flatMap({ $0.isEmpty ? nil : "no-reply@\($0)" }) else {
            throw DeliveryError(
                "the SMTP sender needs a From address: give --mail-from ADDRESS (OTP_SMTP_FROM) or --domain DOMAIN"
            )
        }
        guard MailComposer.isHeaderSafe(from), from.contains("@") else {
            throw DeliveryError("the SMTP From address \(from) is not an email address")
        }
        self.init(
            host: host, port: port, security: security,
            username: environment["OTP_SMTP_USERNAME"].flatMap { $0.isEmpty ? nil : $0 },
            password: environment["OTP_SMTP_PASSWORD"], from: from, fromName: fromName,
            caFile: environment["OTP_SMTP_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The URL libcurl connects to.
    var curlURL: String {
        let scheme = security == .tls ? "smtps" : "smtp"
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }
}
