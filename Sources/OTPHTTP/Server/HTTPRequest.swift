/// One HTTP request as a handler sees it, its body read in full.
public struct HTTPRequest: Sendable {
    /// The method, such as `GET` or `POST`.
    public var method: String
    /// The path without the query string, such as `/v1/verifications`.
    public var path: String
    /// The headers the server was asked to keep, by lower-case name.
    public var headers: [String: String]
    /// The body, empty when there was none or it was over the limit.
    public var body: [UInt8]
    /// The socket peer's address, such as `127.0.0.1`.
    public var peerAddress: String
    /// Whether the body was over the server's limit (and so was dropped).
    public var bodyTooLarge: Bool
    /// The query parameters the server was asked to keep, decoded, by name.
    public var query: [String: String]

    /// Creates a request.
    public init(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [],
        peerAddress: String = "127.0.0.1", bodyTooLarge: Bool = false, query: [String: String] = [:]
    ) {
        self.query = query
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
        self.bodyTooLarge = bodyTooLarge
    }
}
