import Foundation
import OTPCore

/// One try at delivering a verification's code: the start's first or a resend's.
///
/// It holds neither the code nor the full destination: only when, through which channel, for
/// which step, how it went, the sender's reason when it failed and the provider's message id when
/// the sender knows it. A store keeps a verification's attempts as long as the verification.
public struct DeliveryAttempt: Sendable, Equatable {
    /// The step that sent the code.
    public enum Step: String, Sendable, CaseIterable {
        /// The start's first code.
        case start
        /// A resend's new code.
        case resend
    }

    /// How the try went.
    public enum Outcome: String, Sendable, CaseIterable {
        /// The sender handed the message over.
        case sent
        /// The sender refused the message or could not reach its provider.
        case failed
    }

    /// The verification the code belongs to.
    public var verificationID: String
    /// When the sender answered.
    public var at: Date
    /// The channel the code went through.
    public var channel: Channel
    /// The start or a resend.
    public var step: Step
    /// Sent or failed.
    public var outcome: Outcome
    /// The ``DeliveryError``'s reason when the try failed, else `nil`.
    public var reason: String?
    /// The provider's id for the message, when the sender knows it.
    public var messageID: String?

    /// The most characters a stored reason or message id keeps.
    public static let maxTextCharacters = 300

    /// Creates an attempt; a reason or message id longer than ``maxTextCharacters`` is cut there.
    public init(
        verificationID: String, at: Date, channel: Channel, step: Step, outcome: Outcome,
        reason: String? = nil, messageID: String? = nil
    ) {
        self.verificationID = verificationID
        self.at = at
        self.channel = channel
        self.step = step
        self.outcome = outcome
        self.reason = reason.map { String($0.prefix(Self.maxTextCharacters)) }
        self.messageID = messageID.map { String($0.prefix(Self.maxTextCharacters)) }
    }
}
