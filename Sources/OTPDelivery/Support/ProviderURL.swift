import OTPServer

/// Which provider URLs a sender accepts: HTTPS anywhere, plain HTTP only to this machine.
///
/// A code travels in the request body: over plain HTTP anyone on the path reads it (and the
/// signature or account token with it). Loopback stays allowed for local relays and tests.
enum ProviderURL {
    /// Throws unless `url` is `https://…`, or `http://` to `127.0.0.1`, `[::1]` or `localhost`.
    static func requireSecure(_ url: String, what: String) throws(DeliveryError) {
        if url.hasPrefix("https://") { return }
        guard url.hasPrefix("http://") else { throw DeliveryError("\(what) must be an https:// URL") }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host: Substring
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        let hostOnly = host.split(separator: "@").last ?? host
        guard ["127.0.0.1", "::1", "localhost"].contains(hostOnly.lowercased()) else {
            throw DeliveryError(
                "\(what) must be https:// (plain http:// only to 127.0.0.1, [::1] or localhost)")
        }
    }
}
