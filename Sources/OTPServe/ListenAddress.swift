import OTPHTTP

/// Parsing of listener addresses given as text.
public enum ListenAddress {
    /// Reads `HOST:PORT` (IPv6 in brackets) for a listener such as `--metrics-address`; port 0 picks one.
    public static func parse(_ text: String) throws(ServerStartError) -> (host: String, port: Int) {
        var host = Substring(text)
        var portText: Substring
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            portText = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            guard portText.hasPrefix(":") else { throw ServerStartError("\(text) is not HOST:PORT") }
            portText = portText.dropFirst()
        } else {
            guard let colon = host.lastIndex(of: ":") else {
                throw ServerStartError("\(text) is not HOST:PORT")
            }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            throw ServerStartError("\(text) is not HOST:PORT with a port from 0 to 65535")
        }
        return (String(host), port)
    }
}
