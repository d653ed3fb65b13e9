import Foundation
import OTPCore
import OTPEngine
import OTPTokens

/// Signs the approval tokens a hosted page hands to the app's return URL, and publishes their keys.
public protocol ApprovalTokenIssuing: Sendable {
    /// A signed token saying that the verification was approved and what it proved (the verified
    /// destination, the start's ref and transaction, a hosted flow's nonce), for the given audience
    /// (the return URL's origin, or the publishable key's name).
    func approvalToken(
        for subject: ApprovedSubject, audience: String, nonce: String?, issuedAt: Date, lifetime: Duration
    ) -> String
    /// The public keys that verify the tokens, as a JWK Set document (`/.well-known/jwks.json`).
    var keySetJSON: [UInt8] { get }
}

/// The hosted verification page: where it lives, where it may send the browser back to, and who
/// signs the approval tokens.
public struct HostedPages: Sendable {
    /// The server's public address, such as `https://verify.example.com`: the page is at
    /// `{publicURL}/v/{pageToken}` and the tokens' issuer is this address.
    public var publicURL: String
    /// The origins a return URL may have, such as `https://app.example`: exact, https except loopback.
    public var returnOrigins: Set<String>
    /// Signs approval tokens.
    public var issuer: any ApprovalTokenIssuing
    /// How long the page's approval tokens are good for; the signer is given it for each token.
    public var tokenLifetime: Duration

    /// How long an approval token is good for unless told otherwise: two minutes, within the ten
    /// that ``OTPTokens/ApprovalTokenVerifier`` accepts at most.
    public static let defaultTokenLifetime: Duration = .seconds(120)

    /// The longest return URL accepted, in bytes.
    public static let maxReturnURLBytes = RequestBodies.maxReturnURLBytes
    /// The longest `state` accepted, in bytes.
    public static let maxStateBytes = RequestBodies.maxStateBytes

    /// Creates the page's settings; check them with ``problems``.
    public init(
        publicURL: String, returnOrigins: [String], issuer: any ApprovalTokenIssuing,
        tokenLifetime: Duration = HostedPages.defaultTokenLifetime
    ) {
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.returnOrigins = Set(returnOrigins.compactMap(Self.origin(of:)))
        self.issuer = issuer
        self.tokenLifetime = tokenLifetime
        self.givenOrigins = returnOrigins
    }

    private let givenOrigins: [String]

    /// What is wrong with the settings, a fact about each (`public-url`, `hosted-return-origins`);
    /// empty when they can be used.
    public var problems: [ConfigurationProblem] {
        var problems: [ConfigurationProblem] = []
        if Self.origin(of: publicURL) == nil {
            problems.append(
                ConfigurationProblem(
                    setting: "public-url",
                    fact: "must be an https:// address (http:// only on loopback), not \(publicURL)"))
        } else if let url = URL(string: publicURL), !url.path.isEmpty, url.path != "/" {
            problems.append(
                ConfigurationProblem(
                    setting: "public-url",
                    fact:
                        "must be an origin without a path, such as https://verify.example.com, not \(publicURL)"
                ))
        }
        if givenOrigins.isEmpty {
            problems.append(
                ConfigurationProblem(
                    setting: "hosted-return-origins", fact: "needs at least one origin the page may return to"
                ))
        }
        for given in givenOrigins {
            guard let origin = Self.origin(of: given), origin == given.lowercased() else {
                problems.append(
                    ConfigurationProblem(
                        setting: "hosted-return-origins",
                        fact: "takes exact origins such as https://app.example "
                            + "(https, or http on loopback, no path), not \(given)"))
                continue
            }
        }
        return problems
    }

    /// The origin of an address, `scheme://host[:port]` in lower case without a default port, when
    /// it is https, or http on a loopback host, with no user name or password; otherwise `nil`.
    public static func origin(of address: String) -> String? {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased(),
            let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return nil }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        guard scheme == "https" || (scheme == "http" && loopback) else { return nil }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = url.port, port != defaultPort {
            return "\(scheme)://\(hostPart):\(port)"
        }
        return "\(scheme)://\(hostPart)"
    }

    /// Whether the page may send the browser to this return URL: its origin is one of ``returnOrigins``.
    public func allowsReturn(to returnURL: String) -> Bool {
        guard returnURL.utf8.count <= Self.maxReturnURLBytes,
            !returnURL.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
            let origin = Self.origin(of: returnURL), URL(string: returnURL)?.fragment == nil
        else { return false }
        return returnOrigins.contains(origin)
    }

    /// The page's address for a page token.
    func pageURL(token: String) -> String {
        "\(publicURL)/v/\(token)"
    }

    /// The address the page sends the browser to after approval: the return URL with `state` and
    /// `token` added to its query.
    static func redirectURL(returnURL: String, state: String, token: String) -> String {
        returning(to: returnURL, state: state, name: "token", value: token)
    }

    /// The return URL with `state` and one more parameter added to its query.
    static func returning(to returnURL: String, state: String, name: String, value: String) -> String {
        let separator =
            returnURL.contains("?") ? (returnURL.hasSuffix("?") || returnURL.hasSuffix("&") ? "" : "&") : "?"
        return returnURL + separator + "state=" + FormEncoding.percentEncode(state) + "&" + name + "="
            + FormEncoding.percentEncode(value)
    }
}

/// What a hosted start asked for: where the page returns, the caller's `state`, the backend's
/// `nonce` for this sign-in, and how the token is handed over.
struct HostedLink: Sendable, Equatable {
    /// The verification the page is for.
    var verificationID: String
    /// Where the browser goes after approval.
    var returnURL: String
    /// The caller's value, handed back on the return URL.
    var state: String
    /// The backend's value for this sign-in, carried in the approval token as `nonce`.
    var nonce: String
    /// A POST of the token to the return URL, or the token in its query.
    var responseMode: RequestBodies.ResponseMode
}

/// The page token: the link, authenticated by an HMAC under a key derived from the server's secret.
///
/// `base64url(id NUL returnURL NUL state NUL nonce NUL responseMode) "." base64url(first 16 bytes
/// of the HMAC)`. Nothing is
/// stored: a token is good while its MAC holds and its verification can still be approved, and
/// 128 bits of MAC cannot be guessed. Forging one needs the server's secret.
enum PageToken {
    /// The domain-separation label of the MAC.
    private static let label = Array("otpkit hosted page v2\u{0}".utf8)

    /// The key the page tokens are authenticated with, derived from the server's secret.
    static func key(fromSecret secret: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticationCode(key: secret, message: Array("otpkit hosted page key v1".utf8)) ?? []
    }

    /// The token for a link.
    static func make(_ link: HostedLink, key: [UInt8]) -> String? {
        let payload = Array(
            [link.verificationID, link.returnURL, link.state, link.nonce, link.responseMode.rawValue]
                .joined(separator: "\u{0}").utf8)
        guard let mac = HMACSHA256.authenticationCode(key: key, message: label + payload) else { return nil }
        return Base64URL.encode(payload) + "." + Base64URL.encode(Array(mac.prefix(16)))
    }

    /// The link a token carries, or `nil` when it is not one this server made.
    static func open(_ token: String, key: [UInt8]) -> HostedLink? {
        guard token.utf8.count <= 4096 else { return nil }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(String(parts[0])),
            let mac = Base64URL.decode(String(parts[1])), mac.count == 16,
            let expected = HMACSHA256.authenticationCode(key: key, message: label + payload),
            HMACSHA256.constantTimeEqual(Array(expected.prefix(16)), mac)
        else { return nil }
        let fields = payload.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count == 5, !fields[0].isEmpty,
            let mode = RequestBodies.ResponseMode(rawValue: fields[4])
        else { return nil }
        return HostedLink(
            verificationID: fields[0], returnURL: fields[1], state: fields[2], nonce: fields[3],
            responseMode: mode)
    }
}

/// `application/x-www-form-urlencoded`, as a page without JavaScript posts it.
package enum FormEncoding {
    /// The value of a field in a form body, decoded; `nil` when the field is absent.
    package static func value(of name: String, in body: [UInt8]) -> String? {
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(
                separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(parts[0]), key == name else { continue }
            return parts.count > 1 ? decode(parts[1]) : ""
        }
        return nil
    }

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                    let value = UInt8(
                        String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                else { return nil }
                out.append(value)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986).
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
