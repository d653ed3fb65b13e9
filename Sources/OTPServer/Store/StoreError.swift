/// A store did not answer or answered nonsense; the server answers 503 `store_unavailable`.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without codes or destinations.
    public var reason: String

    /// Creates a store error.
    public init(_ reason: String) {
        self.reason = reason
    }

    /// What went wrong.
    public var description: String { reason }
}
