/// Why a store could not answer: the server answers 503 `store_unavailable`.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without codes or destinations.
    public var reason: String
    /// The error the store's driver or system call gave, when there was one.
    public var underlying: (any Error & Sendable)?

    /// Creates a store error, keeping the driver's own error when there is one.
    public init(_ reason: String, underlying: (any Error & Sendable)? = nil) {
        self.reason = reason
        self.underlying = underlying
    }

    /// What went wrong, and the underlying error after a colon.
    public var description: String {
        underlying.map { "\(reason): \($0)" } ?? reason
    }

    /// Equal when the reasons and the descriptions of the underlying errors are.
    public static func == (left: StoreError, right: StoreError) -> Bool {
        left.reason == right.reason
            && left.underlying.map { String(describing: $0) }
                == right.underlying.map { String(describing: $0) }
    }
}
