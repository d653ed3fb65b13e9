import OTPEngine

/// A start guard and how it is used.
public struct StartGuardSettings: Sendable {
    /// The guard.
    public var guardian: any StartGuard
    /// Whether starts go ahead when the guard cannot answer (`false`, the default: they are refused).
    public var failOpen: Bool
    /// Whether starts by secret keys are judged too; publishable keys' always are.
    public var appliesToSecretKeys: Bool

    /// Creates the settings.
    public init(guardian: any StartGuard, failOpen: Bool = false, appliesToSecretKeys: Bool = false) {
        self.guardian = guardian
        self.failOpen = failOpen
        self.appliesToSecretKeys = appliesToSecretKeys
    }
}
