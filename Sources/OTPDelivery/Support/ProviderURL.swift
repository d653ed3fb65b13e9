import CCurl
import OTPEngine

/// Which provider URLs a sender accepts: HTTPS anywhere, plain HTTP only to this machine.
///
/// A code travels in the request body: over plain HTTP anyone on the path reads it (and the
/// signature or account token with it). Loopback stays allowed for local relays and tests.
///
/// The URL is parsed once, by libcurl's own URL parser (`curl_url`), and the rule is judged on the
/// scheme and host libcurl will connect to; the URL libcurl wrote back is what every request then
/// uses, so no second parser can read the same text another way. A user name or password in the
/// URL is refused: secrets go in the environment, and `user@host` is how a URL is made to look
/// like another host.
enum ProviderURL {
    /// `url` as libcurl normalised it, when it is `https://…`, or `http://` to a loopback host
    /// (`127.0.0.0/8`, `[::1]` or `localhost`), with no user name or password.
    static func secure(_ url: String, what: String) throws(DeliveryError) -> String {
        guard let handle = curl_url() else { throw DeliveryError("\(what): libcurl could not parse URLs") }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK
        else {
            throw DeliveryError("\(what) is not a URL libcurl can read")
        }
        let scheme = part(handle, CURLUPART_SCHEME)?.lowercased()
        let host = (part(handle, CURLUPART_HOST) ?? "").lowercased()
        guard part(handle, CURLUPART_USER) == nil, part(handle, CURLUPART_PASSWORD) == nil else {
            throw DeliveryError("\(what) must not carry a user name or password")
        }
        guard !host.isEmpty, let normalized = part(handle, CURLUPART_URL) else {
            throw DeliveryError("\(what) names no host")
        }
        switch scheme {
        case "https": return normalized
        case "http" where isLoopback(host): return normalized
        case "http":
            throw DeliveryError(
                "\(what) must be https:// (plain http:// only to 127.0.0.1, [::1] or localhost)")
        default: throw DeliveryError("\(what) must be an https:// URL")
        }
    }

    /// Throws unless ``secure(_:what:)`` accepts `url`.
    static func requireSecure(_ url: String, what: String) throws(DeliveryError) {
        _ = try secure(url, what: what)
    }

    /// Whether libcurl connects to this machine for `host` (as its URL parser gives it: IPv6 in
    /// brackets, lower case).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && octet.allSatisfy(\.isNumber)
                && (Int(octet) ?? 256) <= 255
        }
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
