import Foundation
import Observation
import Testing

@testable import OTPCore

/// The screen as people use it (issue 31, UX F11, F12, V11–V16): failed sends, returning
/// views, wrong clocks, pasted messages, a kept invalid flag, tap to correct.
@MainActor
@Suite struct RealUseTests {
    let clock = ManualClock()

    /// A model whose server runs on the manual clock and whose phone clock is `skew` off it.
    func makeModel(
        phoneClockSkew skew: TimeInterval = 0, text: ScreenText = ScreenText(.english)
    ) -> (VerificationModel, PreviewVerificationService) {
        let clock = self.clock
        let service = PreviewVerificationService(now: { clock.date })
        let model = VerificationModel(
            service: service, text: text, clock: clock, now: { clock.date.addingTimeInterval(skew) })
        model.isFocused = true
        return (model, service)
    }

    // MARK: - Item 1, V11: a failed first send

    @Test("V11: a failed first send says why, offers Try again, keeps the keyboard down; Try again sends")
    func failedFirstSend() async {
        let (model, service) = makeModel()
        await service.failNext(.start, with: .networkFailure)
        await model.start(to: "+15550100")
        #expect(model.statusMessage?.text == "Couldn't reach the server. Try again.")
        #expect(model.canRetry, "Try again is offered")
        #expect(!model.keepsKeyboard, "no number pad over a field that takes nothing")
        #expect(!model.isSending)
        model.retry()
        await eventually("the second send is answered") { model.destination == "••• 0100" }
        #expect(await service.startCalls == 2)
        #expect(model.statusMessage == nil)
        #expect(!model.canRetry)
        #expect(model.keepsKeyboard)
        #expect(model.sentToText == "We sent a 6-digit code to")
        model.stop()
    }

    @Test("V11: a refused number and a rate limit each say why and offer Try again")
    func refusedAndRateLimited() async {
        for (failure, sentence) in [
            (VerificationFailure.invalidDestination, ScreenText.english.invalidDestination),
            (.rateLimited(retryAfter: 90), ScreenText.english.rateLimited(retryAfter: 90)),
            (.destinationRefused, "Codes can't be sent to this number or address. Use another one."),
            (
                .destinationBlocked(retryAfter: 125),
                "Codes can't be sent to this number right now. Try again in 2:05."
            ),
            (.startRefused, "A code can't be sent right now. Try again later."),
        ] {
            let (model, service) = makeModel()
            await service.failNext(.start, with: failure)
            await model.start(to: "+15550100")
            #expect(model.statusMessage?.text == sentence)
            #expect(model.canRetry)
            model.stop()
        }
    }

    @Test("V11: while the first code is sending the screen says so with progress, keyboard down")
    func sending() {
        var machine = VerificationMachine()
        machine.isFocused = true
        let effects = machine.startRequested(to: "+15550100", channel: nil)
        #expect(effects == [.start(to: "+15550100", channel: nil, locale: "en")])
        #expect(machine.sentToText == "Sending a code…")
        #expect(machine.isSending)
        #expect(!machine.keepsKeyboard)
        #expect(!machine.isInputEnabled)
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        machine.startAnswered(.success(sampleVerification(at: wall)), at: .zero, serverNow: wall)
        #expect(!machine.isSending)
        #expect(machine.keepsKeyboard)
        #expect(machine.sentToText == "We sent a 6-digit code to")
    }

    // MARK: - Item 2, V12: one start per screen

    @Test("V12: start on a view that reappears resumes the same verification and keeps the digits")
    func oneStartPerScreen() async {
        let (model, service) = makeModel()
        await model.start(to: "+15550100")
        model.insert("48")
        model.stop()  // the view went away
        await model.start(to: "+15550100")  // .task runs again when it comes back
        #expect(await service.startCalls == 1, "no second SMS")
        #expect(await service.sentCodes.count == 1)
        #expect(model.codeText == "48")
        model.insert("2019")
        await eventually("the code from the one SMS verifies") { model.phase == .verified }
        model.stop()
    }

    @Test("V12: a second start while the first is in flight sends nothing more")
    func startInFlight() async {
        let (model, service) = makeModel()
        async let first: Void = model.start(to: "+15550100")
        async let second: Void = model.start(to: "+15550100")
        _ = await (first, second)
        #expect(await service.startCalls == 1)
        #expect(model.destination == "••• 0100")
        model.stop()
    }

    @Test("V8 V9: a right code whose answer was lost is Verified after Try again, not left locked")
    func approvedAnswerLost() async {
        let clock = self.clock
        let service = PreviewVerificationService(now: { clock.date })
        let verified = Locked<[String]>([])
        let model = VerificationModel(
            service: service, text: ScreenText(.english), clock: clock, now: { clock.date },
            onVerified: { verification in verified.withLock { $0.append(verification.id) } })
        model.isFocused = true
        await model.start(to: "+15550100")
        await service.loseNextAnswer(.check)
        model.insert("482019")
        await eventually("the lost answer reads as a network failure") { model.canRetry }
        model.retry()
        await eventually("verified") { model.phase == .verified }
        #expect(model.statusMessage?.text == "Verified")
        #expect(verified.withLock { $0.count } == 1)
        #expect(await service.judgedChecks == 1, "the code was judged once")
        model.stop()
    }

    @Test("V6 V9: a resend whose answer was lost shows the new code's toast and lives by its expiry")
    func resendAnswerLost() async {
        let (model, service) = makeModel()
        await model.start(to: "+15550100")
        clock.advance(by: .seconds(31))
        await eventually("Resend is enabled") { model.isResendEnabled }
        await service.loseNextAnswer(.resend)
        model.resend()
        await eventually("the new code is shown") { model.toast?.text == "New code sent" }
        #expect(await service.sentCodes.count == 2)
        // The first code would have expired at 300 s; the new one lives until 331 s.
        clock.advance(by: .seconds(280))
        await eventually("the screen ticked past the first code's expiry") {
            model.resendLabel == "Resend in 1:00" || model.isResendEnabled
        }
        #expect(model.phase != .expired)
        model.stop()
    }

    // MARK: - Item 3, V13: the server's time

    @Test("V13: a phone clock 6 minutes fast neither expires the code nor refuses it")
    func fastPhoneClock() async {
        let (model, _) = makeModel(phoneClockSkew: 6 * 60)
        await model.start(to: "+15550100")
        #expect(model.phase == .idle, "not expired at once")
        #expect(model.resendLabel == "Resend in 0:30")
        model.insert("482019")
        await eventually("verified") { model.phase == .verified }
        model.stop()
    }

    @Test("V13: a phone clock 2 minutes slow shows the server's 30 s cooldown, not 2:30")
    func slowPhoneClock() async {
        let (model, _) = makeModel(phoneClockSkew: -2 * 60)
        await model.start(to: "+15550100")
        #expect(model.resendLabel == "Resend in 0:30")
        model.stop()
    }

    @Test("V13: the answer's Date header is read as the server's time; a start's createdAt refines it")
    func httpDate() throws {
        let date = try #require(ServerAnswer.date(fromHTTPDate: "Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(date == Date(timeIntervalSince1970: 784_111_777))
        #expect(ServerAnswer.date(fromHTTPDate: "Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(ServerAnswer.date(fromHTTPDate: "Sun, 06 Nov 1994 25:49:37 GMT") == nil)
        let created = date.addingTimeInterval(0.4)
        let started = sampleVerification(at: created)
        #expect(ServerAnswer(started, httpDate: "Sun, 06 Nov 1994 08:49:37 GMT").serverDate == created)
        let older = sampleVerification(at: date.addingTimeInterval(-60))
        #expect(ServerAnswer(older, httpDate: "Sun, 06 Nov 1994 08:49:37 GMT").serverDate == date)
        #expect(ServerAnswer(older, httpDate: nil).serverDate == nil)
    }

    // MARK: - Item 4, F12: a pasted message

    @Test("F12: pasting a whole message submits its code, never the digits run together")
    func pastedMessage() {
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        let effects = machine.insert("Acme: valid for 5 minutes. Your code is 482019", at: .zero)
        #expect(effects == [.check(id: "vf_test", code: "482019")])
    }

    @Test(
        "F12: the origin-bound #code first, else the one run of the code's length, else nothing",
        arguments: [
            ("Your code is 123456.\n\n@example.com #482019", "482019"),
            ("Acme: valid for 5 minutes. Your code is 482019", "482019"),
            ("Your Acme code: 482 019. Valid 10 min.", "482019"),
            ("Ihr Code lautet ٤٨٢٠١٩ (gültig 5 Minuten)", "482019"),
            ("Codes 482019 and 551234", nil),
            ("Call 555 0100 for help, valid 5 minutes", nil),
            ("482019 is your code. Again: 482019", "482019"),
        ] as [(String, String?)])
    func messageRule(text: String, code: String?) {
        #expect(CodeNormalizer.code(inMessage: text, for: .default) == code)
    }

    @Test("F12: a message without a single code leaves the field as it was and submits nothing")
    func messageWithoutCode() {
        var entry = CodeEntry()
        entry.insert("48")
        entry.insert("Codes 482019 and 551234")
        #expect(entry.value == "48")
        #expect(
            entry.apply(TextEdit(range: 2..<2, replacement: "Call 555 0100, valid 5 minutes")) == .refused)
        #expect(entry.value == "48")
    }

    // MARK: - Item 7: the caller keeps the invalid flag on

    @Test("item 7: a caller that keeps isInvalid on gets colour, shake and keyboard for each wrong code")
    func keptInvalidFlag() {
        var field = CodeFieldState()
        #expect(field.edit("111111") == "111111")
        field.setInvalid(true)  // the caller's onComplete: isInvalid = code != right
        #expect(field.shakeTrigger == 1)
        #expect(field.edit("2") == nil, "the next key starts a new code")
        #expect(field.value == "2")
        #expect(field.edit("222222") == "222222")
        #expect(field.submissionCount == 2)
        // The flag is still on: nothing changed for SwiftUI's onChange, so the view reads it again
        // when the submission count changes.
        field.setInvalid(true)
        #expect(field.shakeTrigger == 2, "the second wrong code shakes")
        #expect(field.keepsKeyboard, "and brings the keyboard back")
        #expect(field.cells(isFocused: true, isMasked: false).allSatisfy { $0.role == .error })
        // Both of the view's reads for one code (the flag's change and the count's) shake once.
        field.setInvalid(true)
        #expect(field.shakeTrigger == 2)
        let (outcome, _) = field.edit(TextEdit(range: 6..<6, replacement: "5"))
        #expect(outcome == .changed, "the next key is taken, not refused")
        #expect(field.value == "5")
    }

    @Test("item 7: a PIN pad whose caller keeps isError on shakes for each wrong PIN")
    func keptPinError() {
        var pad = PinPadState(length: 4)
        for digit in [1, 1, 1, 1] { _ = pad.press(.digit(digit)) }
        #expect(pad.completionCount == 1)
        let firstShakes = pad.setError(true)
        #expect(firstShakes)
        for digit in [2, 2, 2, 2] { _ = pad.press(.digit(digit)) }
        #expect(pad.completionCount == 2)
        let secondShakes = pad.setError(true)
        #expect(secondShakes, "the second wrong PIN shakes though the flag never turned off")
        #expect(pad.shakeTrigger == 2)
        let again = pad.setError(true)
        #expect(!again, "read twice for one PIN, it shakes once")
    }

    // MARK: - F11: tap to correct

    @Test("F11: a tapped cell is replaced by the next key, Backspace clears only it, the code submits once")
    func tapToCorrect() {
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        var machine = VerificationMachine()
        machine.isFocused = true
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        _ = machine.insert("482019", at: .zero)
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        machine.selectCell(2, at: .zero)
        #expect(machine.phase == .filling, "correcting leaves the error")
        #expect(machine.cells[2].isSelected && machine.cells[2].isNext)
        #expect(machine.cells.filter(\.isNext).count == 1)
        machine.deleteBackward(at: .zero)
        #expect(machine.cells.map(\.text) == ["4", "8", "", "0", "1", "9"])
        let effects = machine.insert("5", at: .zero)
        #expect(effects == [.check(id: "vf_test", code: "485019")])
        #expect(machine.entry.selection == nil)
    }

    @Test("F11 F10: a tap selects a filled cell, an empty one nothing; under VoiceOver never a cell")
    func tapRule() {
        let filled = CodeCell(id: 2, text: "8", isNext: false, role: .neutral)
        let empty = CodeCell(id: 4, text: "", isNext: true, role: .neutral)
        #expect(CodeEntry.selection(forTapOn: filled, voiceOver: false) == 2)
        #expect(CodeEntry.selection(forTapOn: empty, voiceOver: false) == nil)
        #expect(CodeEntry.selection(forTapOn: filled, voiceOver: true) == nil, "VoiceOver keeps one field")
    }

    @Test("a caller writing its binding sets the code exactly; only the user's keys are pinned")
    func bindingWrittenByTheCaller() {
        var field = CodeFieldState()
        #expect(field.edit("4820") == nil)
        #expect(field.setValue("48") == nil)
        #expect(field.value == "48", "not the last character removed from 4820")
        #expect(field.setValue("٤٨٢٠١٩") == "482019", "a whole code written submits once")
        #expect(field.setValue("482019") == nil)
    }

    @Test("F11: the arrow keys move the selection; right past the last digit goes back to the end")
    func arrowKeys() {
        var entry = CodeEntry()
        entry.insert("4820")
        entry.moveSelection(by: -1)
        #expect(entry.selection == 3)
        entry.moveSelection(by: -1)
        entry.moveSelection(by: -1)
        entry.moveSelection(by: -1)
        entry.moveSelection(by: -1)
        #expect(entry.selection == 0, "left stops at the first cell")
        entry.insert("7")
        #expect(entry.value == "7820")
        #expect(entry.selection == nil)
        entry.moveSelection(by: -1)
        entry.moveSelection(by: 1)
        #expect(entry.selection == nil, "right from the last digit is the end again")
        entry.insert("1")
        #expect(entry.value == "78201")
        entry.select(5)
        #expect(entry.selection == nil, "an empty cell is not selected")
    }

    // MARK: - Item 12: smaller points

    @Test("item 12: typing the rejected code again sends nothing and shows the rejection again")
    func retypedRejectedCode() {
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        _ = machine.insert("482019", at: .zero)
        _ = machine.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        var effects: [VerificationMachine.Effect] = []
        for key in "482019" { effects += machine.insert(String(key), at: .zero) }
        #expect(effects.isEmpty, "not spent again")
        #expect(machine.phase == .invalid)
        #expect(machine.statusMessage?.text == "Code doesn't match. 2 attempts left.")
        #expect(machine.shakeTrigger == 2)
    }

    @Test("item 12: stop() during a suggestion fill gives input back")
    func stopDuringSuggestion() async {
        let (model, _) = makeModel()
        await model.start(to: "+15550100")
        model.offerSuggestion("482019")
        model.acceptSuggestion()
        #expect(!model.isInputEnabled)
        model.stop()
        #expect(model.isInputEnabled, "input is not locked for good")
        model.insert("4")
        #expect(model.codeText == "4")
    }

    @Test("item 12: Verifying… is announced assertively, so it is not spoken after the answer")
    func verifyingPriority() {
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        var machine = VerificationMachine()
        machine.began(sampleVerification(at: wall), at: .zero, serverNow: wall)
        _ = machine.insert("482019", at: .zero)
        #expect(machine.announcements.last == Announcement("Verifying…", priority: .assertive, serial: 1))
    }

    @Test("item 8: a countdown tick changes the Resend label, never the code field's state")
    func tickLeavesTheField() async {
        let (model, _) = makeModel()
        await model.start(to: "+15550100")
        model.insert("48")
        final class Flag: @unchecked Sendable { var value = false }
        let fieldChanged = Flag()
        let screenChanged = Flag()
        withObservationTracking {
            _ = model.codeField
        } onChange: {
            fieldChanged.value = true
        }
        withObservationTracking {
            _ = model.resendLabel
        } onChange: {
            screenChanged.value = true
        }
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        await eventually("0:29") { model.resendLabel == "Resend in 0:29" }
        #expect(screenChanged.value)
        #expect(!fieldChanged.value, "the field (and its text field's selection) is left alone")
        model.insert("2")
        #expect(fieldChanged.value, "a key does change it")
        model.stop()
    }

    // MARK: - V15, V16

    @Test("V15: the destination is isolated left to right for every language")
    func isolatedDestination() async {
        let (model, _) = makeModel(text: ScreenText(.arabic))
        await model.start(to: "+15550100")
        #expect(model.isolatedDestination == "\u{2066}••• 0100\u{2069}")
        #expect(ScreenText.isolatedLeftToRight("") == "")
        model.stop()
    }

    @Test("V16: an approval shows what is approved above the cells, in the screen's language")
    func transactionLine() {
        let wall = Date(timeIntervalSince1970: 1_795_000_000)
        var verification = sampleVerification(at: wall)
        verification.transaction = TransactionDetails(amount: "12.50", currency: "EUR", payee: "ACME Ltd")
        var machine = VerificationMachine()
        #expect(machine.transactionText == nil)
        machine.began(verification, at: .zero, serverNow: wall)
        #expect(machine.transactionText == "Approve 12.50 EUR to ACME Ltd")
        var german = VerificationMachine(language: .german)
        german.began(verification, at: .zero, serverNow: wall)
        #expect(german.transactionText == "12.50 EUR an ACME Ltd freigeben")
    }

    // MARK: - Overrides and the start's locale

    @Test("every sentence can be overridden: one key, or a language of the app's own catalog")
    func overrides() {
        let text = ScreenText(.english).overriding(.title, with: .text("Confirm it's you"))
        #expect(text.title == "Confirm it's you")
        #expect(text.verifying == "Verifying…", "the rest stays the catalog's")
        let french = ScreenText(
            identifier: "fr",
            table: [
                .title: .text("Saisissez le code"),
                .incorrect: .plural(
                    on: "count",
                    forms: [
                        .one: "Code erroné. {count} essai restant.",
                        .other: "Code erroné. {count} essais restants.",
                    ]),
            ])
        #expect(french.title == "Saisissez le code")
        #expect(french.incorrect(attemptsLeft: 1) == "Code erroné. 1 essai restant.")
        #expect(french.incorrect(attemptsLeft: 2) == "Code erroné. 2 essais restants.")
        #expect(french.verifying == "Verifying…", "a missing key falls back")
        #expect(french.serverLocale == "en", "the server's catalog has no French: the fallback's")
        #expect(ScreenText(.german).serverLocale == "de")
    }

    @Test("the start asks for the message in the screen's language")
    func startLocale() async {
        let (model, service) = makeModel(text: ScreenText(.japanese))
        await model.start(to: "+15550100")
        #expect(await service.startLocales == ["ja"])
        model.stop()
    }
}

@Suite struct ContrastTests {
    static let palettes: [(String, PaletteColors)] = [
        ("light", .light), ("dark", .dark), ("light, increased", .lightIncreasedContrast),
        ("dark, increased", .darkIncreasedContrast),
    ]

    @Test("V14: WCAG's contrast ratio: black on white is 21:1, a colour on itself 1:1")
    func ratio() {
        #expect(abs(RGBColor.contrast(.black, .white) - 21) < 0.001)
        #expect(RGBColor.contrast(.white, .white) == 1)
        let gray = RGBColor(red: 0.8, green: 0.8, blue: 0.84)
        #expect(abs(RGBColor.contrast(gray, .white) - 1.59) < 0.01, "the old border: the issue's 1.59:1")
    }

    @Test("V14: an empty cell's border has 3:1 against the screen and the cell, text 4.5:1, in every palette")
    func palettes() {
        for (name, palette) in Self.palettes {
            for against in [palette.background, palette.surface] {
                #expect(RGBColor.contrast(palette.border, against) >= 3, "\(name) border")
                for (role, color) in [
                    ("label", palette.label), ("secondary", palette.secondaryLabel),
                    ("accent", palette.accent), ("danger", palette.danger), ("success", palette.success),
                ] {
                    #expect(RGBColor.contrast(color, against) >= 4.5, "\(name) \(role)")
                }
            }
        }
    }

    @Test("V14: the Increase Contrast palettes raise every contrast of the standard ones")
    func increased() {
        for (standard, increased) in [
            (PaletteColors.light, PaletteColors.lightIncreasedContrast), (.dark, .darkIncreasedContrast),
        ] {
            for path in [\PaletteColors.border, \.label, \.secondaryLabel, \.accent, \.danger, \.success] {
                #expect(
                    RGBColor.contrast(increased[keyPath: path], increased.surface)
                        > RGBColor.contrast(standard[keyPath: path], standard.surface))
            }
        }
    }

    @Test("V14: Try again and Resend are at least 44 pt tall")
    func tapTarget() {
        #expect(ScreenMetrics.minimumTapTarget >= 44)
    }
}

@Suite struct HardwareKeypadTests {
    @Test("item 12: a hardware keyboard's digits, Delete and decimal point are keypad keys")
    func hardwareKeys() {
        #expect(KeypadKey(hardwareCharacters: "7", accessory: .none) == .digit(7))
        #expect(KeypadKey(hardwareCharacters: "٤", accessory: .none) == .digit(4))
        #expect(KeypadKey(hardwareCharacters: "\u{7F}", accessory: .none) == .delete)
        #expect(KeypadKey(hardwareCharacters: ".", accessory: .decimal) == .accessory(.decimal))
        #expect(KeypadKey(hardwareCharacters: ".", accessory: .none) == nil)
        #expect(KeypadKey(hardwareCharacters: "a", accessory: .none) == nil)
        #expect(KeypadKey(hardwareCharacters: "12", accessory: .none) == nil)
    }
}

@Suite struct CellMotionTests {
    @Test("item 12: under Reduce Motion the next cell does not grow; a selected cell is outlined thickest")
    func cellScaleAndOutline() {
        #expect(Motion.cellScale(isNext: true, reduceMotion: false) > 1)
        #expect(Motion.cellScale(isNext: true, reduceMotion: true) == 1)
        #expect(Motion.cellScale(isNext: false, reduceMotion: false) == 1)
        #expect(Motion.outlineWidth(isNext: false, isSelected: false) == 1)
        #expect(
            Motion.outlineWidth(isNext: true, isSelected: true)
                > Motion.outlineWidth(isNext: true, isSelected: false))
    }
}
