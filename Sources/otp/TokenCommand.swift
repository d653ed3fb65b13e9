import Foundation
import OTPTokens

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `otp token verify TOKEN --jwks URL|FILE --audience ORIGIN [--issuer URL] [expectations]`: checks
/// an approval token offline, as an app's backend would, and prints its claims.
///
/// The expectations (`--nonce`, `--ref`, `--phone-number` or `--email`, `--transaction-hash`) are
/// claims the token must carry exactly; a test destination's token passes only with `--allow-test`.
///
/// Exit status: 0 for a valid token, 1 for a token that is not, 2 for bad usage or a key set that
/// cannot be read.
enum TokenCommand {
    static let usage = """
        usage: otp token verify TOKEN --jwks URL|FILE --audience ORIGIN [--issuer URL]
               [--nonce N] [--ref R] [--phone-number E164 | --email ADDRESS] [--transaction-hash H]
               [--allow-test]
        """

    /// The command's options, each declared once.
    enum Flags {
        static let jwks = Option.text(
            "jwks", "URL|FILE", "the server's key set: https://…/.well-known/jwks.json, or a file")
        static let audience = Option.text(
            "audience", "ORIGIN|NAME",
            "your return URL's origin (hosted page), or your publishable key's name (app)")
        static let issuer = Option.text(
            "issuer", "URL", defaultText: "the key set URL's origin",
            "the server's --public-url, or otpkit for a server without one")
        static let nonce = Option.text(
            "nonce", "N", "the nonce your backend gave the hosted start for this sign-in")
        static let ref = Option.text("ref", "R", "the ref the start carried")
        static let phoneNumber = Option.text(
            "phone-number", "E164", "the phone number being signed in; the token must verify exactly it")
        static let email = Option.text(
            "email", "ADDRESS", "the email address being signed in; the token must verify exactly it")
        static let transactionHash = Option.text(
            "transaction-hash", "H",
            "the base64url SHA-256 of the transaction's canonical JSON; without it a token that "
                + "approves a transaction is refused")
        static let allowTest = Flag(
            "allow-test", "accept a token for one of the server's test destinations (fixed codes)")
    }

    static let specs: [OptionSpec] = [
        Flags.jwks.spec, Flags.audience.spec, Flags.issuer.spec, Flags.nonce.spec, Flags.ref.spec,
        Flags.phoneNumber.spec, Flags.email.spec, Flags.transactionHash.spec, Flags.allowTest.spec,
    ]

    /// Runs the command; returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        let token: String
        let jwks: String
        let audience: String
        let issuer: String?
        var expectations = ApprovalExpectations()
        do throws(UsageError) {
            let options = try ParsedOptions.parse(
                arguments, specs: specs, environment: ProcessInfo.processInfo.environment)
            if options.wantsHelp {
                print(ParsedOptions.help(usage: usage, specs: specs))
                return 0
            }
            guard options.positional.count == 2, options.positional[0] == "verify" else {
                throw UsageError("otp token takes: verify TOKEN")
            }
            token = options.positional[1]
            guard let given = try options.value(Flags.jwks), !given.isEmpty else {
                throw UsageError("--jwks is needed: the server's /.well-known/jwks.json, or a file")
            }
            guard let origin = try options.value(Flags.audience), !origin.isEmpty else {
                throw UsageError("--audience is needed: your return URL's origin")
            }
            guard Self.isAllowedKeySetLocation(given) else {
                throw UsageError(
                    "--jwks must be an https:// address (http:// only on loopback) or a file, not \(given)")
            }
            jwks = given
            audience = origin
            issuer = try options.value(Flags.issuer)
            expectations.nonce = try options.value(Flags.nonce)
            expectations.ref = try options.value(Flags.ref)
            expectations.phoneNumber = try options.value(Flags.phoneNumber)
            expectations.email = try options.value(Flags.email)
            guard expectations.phoneNumber == nil || expectations.email == nil else {
                throw UsageError("give --phone-number or --email, not both")
            }
            expectations.transactionHash = try options.value(Flags.transactionHash)
            expectations.allowsTestDestinations = options.flag(Flags.allowTest)
        } catch {
            printError("otp token: \(error.message) (see otp token --help)")
            return 2
        }
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet.decode(try await fetch(jwks))
        } catch let error as FetchError {
            printError("otp token: cannot read the key set \(jwks): \(error)")
            return 2
        } catch let error as ApprovalTokenError {
            printError("otp token: the key set \(jwks) is not one: \(error)")
            return 2
        } catch {
            printError("otp token: cannot fetch the key set \(jwks): \(error.localizedDescription)")
            return 2
        }
        guard let expectedIssuer = issuer ?? origin(of: jwks) else {
            printError("otp token: --issuer is needed when --jwks is a file")
            return 2
        }
        let verifier = ApprovalTokenVerifier(keySet: keySet, issuer: expectedIssuer, audience: audience)
        do throws(ApprovalTokenError) {
            let claims = try verifier.verify(token, expecting: expectations)
            print("valid: " + claims.json)
            return 0
        } catch {
            printError("otp token: invalid (\(error.kind.rawValue)): \(error)")
            return 1
        }
    }

    /// Whether a key set may be read from `location`: a file, an https address, or http on a
    /// loopback host (a key set fetched in the clear could be swapped for an attacker's).
    static func isAllowedKeySetLocation(_ location: String) -> Bool {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return !location.lowercased().hasPrefix("http:") }
        if scheme == "https" { return true }
        let host = (url.host ?? "").lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The bytes at an http(s) address or in a file.
    private static func fetch(_ location: String) async throws -> [UInt8] {
        if let url = URL(string: location), url.scheme == "http" || url.scheme == "https" {
            let (data, response) = try await URLSession(configuration: .ephemeral).data(from: url)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 else { throw FetchError(description: "the server answered \(status)") }
            return Array(data)
        }
        guard let data = FileManager.default.contents(atPath: location) else {
            throw FetchError(description: "no such readable file")
        }
        return Array(data)
    }

    private struct FetchError: Error, CustomStringConvertible {
        var description: String
    }

    /// `scheme://host[:port]` of an http(s) address, or `nil` for a file.
    private static func origin(of location: String) -> String? {
        guard let url = URL(string: location), let scheme = url.scheme, scheme == "http" || scheme == "https",
            let host = url.host
        else { return nil }
        return url.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
