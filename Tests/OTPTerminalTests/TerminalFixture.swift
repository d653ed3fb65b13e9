import Foundation
import OTPCore

@testable import OTPTerminal

/// What the terminal suites share: a fixed wall time, a colourless renderer, and a machine that
/// began a pending verification at that time.
protocol TerminalFixture {}

extension TerminalFixture {
    var wall: Date { Date(timeIntervalSince1970: 1_795_000_000) }
    var renderer: TerminalRenderer { TerminalRenderer(color: false) }

    func verification(length: Int) -> Verification {
        Verification(
            id: "vf_t", status: .pending, channel: .sms, to: "+1 ••• ••• 0100", codeLength: length,
            attemptsLeft: 3, sendsLeft: 4, expiresAt: wall.addingTimeInterval(300),
            resendAvailableAt: wall.addingTimeInterval(30), createdAt: wall)
    }

    func machine(length: Int = 6) -> VerificationMachine {
        var machine = VerificationMachine(format: CodeFormat(length: length))
        machine.isFocused = true
        machine.began(verification(length: length), at: .zero, serverNow: wall)
        return machine
    }
}
