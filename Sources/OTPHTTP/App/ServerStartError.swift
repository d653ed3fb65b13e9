/// Why a server could not be put together or started; `otp serve` prints it and exits.
public struct ServerStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}
