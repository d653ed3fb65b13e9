#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How rate limits see a client address: IPv4 whole, IPv6 by its /64 network.
public enum ClientAddress {
    /// The form limits count by: `4:192.0.2.1`, `6:20010db8000000aa` (the first 64 bits), or the text as given.
    ///
    /// IPv4-mapped IPv6 addresses count as their IPv4 address; a zone (`%eth0`) and
    /// brackets are ignored.
    public static func limitKey(_ text: String) -> String {
        var address = text.trimmingWhitespace()
        if address.hasPrefix("["), address.hasSuffix("]") {
            address = String(address.dropFirst().dropLast())
        }
        if let percent = address.firstIndex(of: "%") {
            address = String(address[..<percent])
        }
        // `withCString`: the implicit conversion would copy a short address to the heap.
        var v4 = in_addr()
        if address.withCString({ inet_pton(AF_INET, $0, &v4) }) == 1 {
            return "4:" + address
        }
        var v6 = in6_addr()
        guard address.withCString({ inet_pton(AF_INET6, $0, &v6) }) == 1 else { return "?:" + text }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        if Array(bytes.prefix(12)) == mappedPrefix {
            return "4:" + bytes.suffix(4).map { String($0) }.joined(separator: ".")
        }
        return "6:" + Hex.encode(bytes.prefix(8))
    }

    /// Whether the text is an IPv4 or IPv6 address (brackets and a zone allowed), as a proxy writes one.
    public static func isIPAddress(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && !limitKey(text).hasPrefix("?:")
    }
}
