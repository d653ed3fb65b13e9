import OTPCore

/// The API keys in force, which a reload can replace while the server runs.
///
/// A request reads the keys once, when its key is checked; a reload changes what later requests
/// see and leaves requests already past the check untouched.
public final class KeyRing: Sendable {
    private let keys: Locked<APIKeys>

    /// A ring holding these keys.
    public init(_ keys: APIKeys) {
        self.keys = Locked(keys)
    }

    /// The keys in force now.
    public var current: APIKeys { keys.withLock { $0 } }

    /// Puts `keys` in force in place of the current ones.
    public func replace(with keys: APIKeys) {
        self.keys.withLock { $0 = keys }
    }
}
