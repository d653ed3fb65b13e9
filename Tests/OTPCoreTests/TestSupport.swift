import Foundation
import Testing

@testable import OTPCore

/// Lets other tasks run until `condition` holds; fails the test when it never does.
///
/// No wall-clock waiting: it only yields the current task.
@MainActor
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async {
    for _ in 0..<20_000 {
        if condition() { return }
        await Task.yield()
    }
    Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
}

/// A verification object for machine tests.
func sampleVerification(
    id: String = "vf_test", status: VerificationStatus = .pending, length: Int = 6, attemptsLeft: Int = 3,
    sendsLeft: Int = 4, expiresIn: TimeInterval = 300, resendIn: TimeInterval? = 30, at now: Date
) -> Verification {
    Verification(
        id: id, status: status, channel: .sms, to: "+1 ••• ••• 0100", codeLength: length,
        attemptsLeft: attemptsLeft, sendsLeft: sendsLeft, expiresAt: now.addingTimeInterval(expiresIn),
        resendAvailableAt: resendIn.map { now.addingTimeInterval($0) }, createdAt: now)
}
