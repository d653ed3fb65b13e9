/// Why a signing key could not be made; never shows key bytes.
public struct TokenKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as a sentence; it may give lengths but never the key.
    public let reason: String

    init(_ reason: String) {
        self.reason = reason
    }

    /// What went wrong.
    public var description: String { reason }
}
