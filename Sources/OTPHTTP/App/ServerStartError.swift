/// Why a server could not be put together or started; `otp serve` prints it and exits.
public struct ServerStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong beyond any one setting, in a sentence; empty when ``problems`` say it all.
    public var message: String
    /// The settings that are wrong, each with its fact; `otp serve` names each by its flag.
    public var problems: [ConfigurationProblem]

    /// Creates an error.
    public init(_ message: String, problems: [ConfigurationProblem] = []) {
        self.message = message
        self.problems = problems
    }

    /// The message, then each problem as a sentence.
    public var description: String {
        ([message] + problems.map { "\($0)." }).filter { !$0.isEmpty }.joined(separator: " ")
    }
}
