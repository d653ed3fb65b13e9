import Foundation
import OTPCore
import Testing

@testable import OTPTerminal

/// The terminal's share of issue 31: ←/→ to correct a digit (F11), sending and a failed send (V11),
/// the isolated destination (V15), the approval line (V16).
@Suite struct RealUseTerminalTests: TerminalFixture {
    /// A terminal screen over a preview service on a manual clock, its first code sent.
    @MainActor
    func startedScreen(
        _ format: CodeFormat = .default
    ) async -> (ManualClock, PreviewVerificationService, VerificationModel, TerminalScreen) {
        let clock = ManualClock()
        let service = PreviewVerificationService(now: { clock.date })
        let model = VerificationModel(service: service, format: format, clock: clock, now: { clock.date })
        let screen = TerminalScreen(model: model, color: false, reduceMotion: true, output: { _ in })
        await model.start(to: "+15550100")
        return (clock, service, model, screen)
    }

    @Test("F11: the left and right arrows are read, split or in application mode; up and down are skipped")
    func arrows() {
        var parser = KeyParser()
        #expect(parser.feed(Array("\u{1B}[D\u{1B}[C".utf8)) == [.left, .right])
        #expect(parser.feed(Array("\u{1B}OD".utf8)) == [.left])
        #expect(parser.feed(Array("\u{1B}[1;5".utf8)).isEmpty, "waits for the rest")
        #expect(parser.feed(Array("C4".utf8)) == [.right, .character("4")])
        #expect(parser.feed(Array("\u{1B}[B\u{1B}[A".utf8)).isEmpty)
    }

    @MainActor
    @Test("F11: ← selects the digit before, the next digit replaces it, the corrected code submits")
    func arrowsCorrectADigit() async {
        let (_, service, model, screen) = await startedScreen()
        for key in "482018" { _ = screen.handle(.character(key)) }
        for _ in 0..<100 where model.phase != .invalid { await Task.yield() }
        #expect(model.phase == .invalid)
        _ = screen.handle(.left)
        #expect(model.machine.entry.selection == 5)
        let lines = renderer.render(ScreenView(model: model))
        #expect(lines[6].hasSuffix("║ 8 ║"), "the selected cell has a double border: \(lines[6])")
        _ = screen.handle(.character("9"))
        for _ in 0..<100 where model.phase != .verified { await Task.yield() }
        #expect(model.phase == .verified)
        #expect(await service.judgedChecks == 2)
        model.stop()
    }

    @MainActor
    @Test("a code with letters: r and q are typed, Ctrl-R resends, and the screen names Ctrl-R and Esc")
    func lettersInTheCode() async {
        var parser = KeyParser()
        #expect(parser.feed([0x12, 0x71]) == [.resend, .character("q")])

        let (clock, _, model, screen) = await startedScreen(CodeFormat(length: 6, kind: .alphanumeric))
        let sendsLeft = model.machine.verification?.sendsLeft
        #expect(screen.handle(.character("q")) == nil, "q is a code character here, not quit")
        _ = screen.handle(.character("r"))
        #expect(model.machine.entry.characters.prefix(2) == ["Q", "R"])
        clock.advance(by: .seconds(31))
        for _ in 0..<100 where !model.isResendEnabled { await Task.yield() }
        let lines = renderer.render(ScreenView(model: model))
        #expect(lines.contains { $0.contains("[Ctrl-R] ") }, "\(lines)")
        #expect(!lines.contains { $0.contains("[r] ") })
        #expect(lines.contains { $0.contains(ScreenText.english.terminalHintsLetters) })
        _ = screen.handle(.resend)
        for _ in 0..<100 where model.machine.verification?.sendsLeft == sendsLeft { await Task.yield() }
        #expect(model.machine.verification?.sendsLeft == sendsLeft.map { $0 - 1 })
        #expect(screen.handle(.escape) == .quit)
        model.stop()
    }

    @Test("a digits-only code keeps r and q, and Ctrl-R resends there too")
    @MainActor
    func digitsKeepLetterKeys() async {
        let (clock, _, model, screen) = await startedScreen()
        let sendsLeft = model.machine.verification?.sendsLeft
        clock.advance(by: .seconds(31))
        for _ in 0..<100 where !model.isResendEnabled { await Task.yield() }
        #expect(renderer.render(ScreenView(model: model)).contains { $0.contains("[r] ") })
        _ = screen.handle(.resend)
        for _ in 0..<100 where model.machine.verification?.sendsLeft == sendsLeft { await Task.yield() }
        #expect(model.machine.verification?.sendsLeft == sendsLeft.map { $0 - 1 })
        #expect(screen.handle(.character("q")) == .quit)
        model.stop()
    }

    @Test("V11 V15 V16: sending, then the Arabic destination isolated and the approval above the cells")
    func sendingIsolatedAndApproval() {
        var sending = VerificationMachine(language: .arabic)
        _ = sending.startRequested(to: "+15550100", channel: nil)
        let waiting = renderer.render(ScreenView(machine: sending))
        #expect(waiting[2] == "    جارٍ إرسال الرمز…")
        var arabic = VerificationMachine(language: .arabic)
        var approval = verification(length: 6)
        approval.transaction = TransactionDetails(amount: "12.50", currency: "EUR", payee: "ACME Ltd")
        arabic.began(approval, at: .zero, serverNow: wall)
        let lines = renderer.render(ScreenView(machine: arabic))
        #expect(lines[3] == "    \u{2066}+1 ••• ••• 0100\u{2069}")
        #expect(lines[4] == "    الموافقة على دفع 12.50 EUR إلى ACME Ltd")
        var english = machine()
        english.isFocused = false
        #expect(renderer.render(ScreenView(machine: english))[3] == "    +1 ••• ••• 0100")
    }

    @Test("V11: a failed first send shows why and Enter for Try again")
    func failedSend() {
        var machine = VerificationMachine()
        _ = machine.startRequested(to: "+15550100", channel: nil)
        machine.startAnswered(.failure(.networkFailure), at: .zero, serverNow: wall)
        let lines = renderer.render(ScreenView(machine: machine))
        #expect(lines.contains("    Couldn't reach the server. Try again."))
        #expect(lines.contains("    [Enter] Try again"))
    }

    @MainActor
    @Test("V11: Enter after a failed first send sends again, and the code from it verifies")
    func enterRetriesTheStart() async {
        let clock = ManualClock()
        let service = PreviewVerificationService(now: { clock.date })
        await service.failNext(.start, with: .networkFailure)
        let model = VerificationModel(service: service, clock: clock, now: { clock.date })
        let screen = TerminalScreen(model: model, color: false, reduceMotion: true, output: { _ in })
        await model.start(to: "+15550100")
        #expect(model.canRetry)
        _ = screen.handle(.enter)
        for _ in 0..<1_000 where model.destination.isEmpty { await Task.yield() }
        #expect(await service.startCalls == 2)
        for key in "482019" { _ = screen.handle(.character(key)) }
        for _ in 0..<1_000 where model.phase != .verified { await Task.yield() }
        #expect(model.phase == .verified)
        model.stop()
    }
}
