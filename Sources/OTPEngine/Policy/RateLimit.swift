/// At most `limit` requests per `window`, refilled evenly: a burst of `limit`, then one every `window / limit`.
public struct RateLimit: Sendable, Hashable {
    /// Requests allowed in one window; values below 1 count as 1.
    public var limit: Int
    /// The window the limit applies to.
    public var window: Duration

    /// Creates a limit.
    public init(limit: Int, window: Duration) {
        self.limit = limit
        self.window = window
    }
}
