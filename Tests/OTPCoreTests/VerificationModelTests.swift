import Foundation
import Testing

@testable import OTPCore

@MainActor
@Suite struct VerificationModelTests {
    let clock = ManualClock()

    func makeModel(
        _ configuration: PreviewVerificationService.Configuration = .init(),
        onVerified: @escaping @MainActor (Verification) -> Void = { _ in }
    ) async -> (VerificationModel, PreviewVerificationService) {
        let clock = self.clock
        let service = PreviewVerificationService(configuration: configuration, now: { clock.date })
        let model = VerificationModel(
            service: service, clock: clock, now: { clock.date }, onVerified: onVerified)
        model.isFocused = true
        await model.start(to: "+15550100")
        return (model, service)
    }

    @Test("V1: starting shows the masked destination and the countdown")
    func start() async {
        let (model, _) = await makeModel()
        #expect(model.title == "Enter the code")
        #expect(model.sentToText == "We sent a 6-digit code to")
        #expect(model.destination == "••• 0100")
        #expect(model.resendLabel == "Resend in 0:30")
        #expect(model.phase == .idle)
        model.stop()
    }

    @Test("V5: the countdown ticks every second on the clock and announces availability once")
    func countdownOnClock() async {
        let (model, _) = await makeModel()
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        await eventually("0:29") { model.resendLabel == "Resend in 0:29" }
        for _ in 0..<5 {
            await eventually("the timer sleeps again") { clock.sleeperCount == 1 }
            clock.advance(by: .seconds(1))
        }
        await eventually("0:24") { model.resendLabel == "Resend in 0:24" }
        await eventually("the timer sleeps again") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(24))
        await eventually("Resend code") { model.resendLabel == "Resend code" }
        #expect(model.isResendEnabled)
        await eventually("the expiry timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(10))
        await eventually("the expiry timer sleeps") { clock.sleeperCount == 1 }
        #expect(model.announcements.filter { $0.text == "You can request a new code" }.count == 1)
        model.stop()
    }

    @Test("V3 V4 V6: wrong codes lock, resend unlocks with a toast that leaves after two seconds")
    func wrongLockResend() async {
        let (model, service) = await makeModel()
        model.insert("111111")
        await eventually("first answer") { model.phase == .invalid }
        #expect(model.statusMessage?.text == "Code doesn't match. 2 attempts left.")
        model.insert("222222")
        await eventually("second answer") {
            model.statusMessage?.text == "Code doesn't match. 1 attempt left."
        }
        model.insert("333333")
        await eventually("locked") { model.phase == .locked }
        #expect(model.statusMessage?.text == "Too many attempts. Request a new code.")
        #expect(model.shakeTrigger == 3)
        model.resend()
        #expect(model.toast == nil)
        await eventually("timer") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(30))
        await eventually("resend enabled") { model.isResendEnabled }
        model.resend()
        await eventually("toast") { model.toast?.text == "New code sent" }
        #expect(model.phase == .idle)
        #expect(model.resendLabel == "Resend in 1:00")
        #expect(await service.sentCodes.count == 2)
        await eventually("timer") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(2))
        await eventually("toast gone") { model.toast == nil }
        model.stop()
    }

    @Test(
        "finished checks and resends leave the model's work list, so it does not grow with the screen's life")
    func workDoesNotAccumulate() async {
        let (model, _) = await makeModel(.init(maxAttempts: 100))
        for round in 0..<20 {
            model.insert(String(repeating: String(round % 9 + 1), count: 6))
            await eventually("answer \(round)") { model.phase == .invalid && model.workInFlight == 0 }
        }
        #expect(model.workInFlight == 0)
        model.stop()
    }

    @Test("V8: the right code verifies and calls the completion once with the server's result")
    func verifies() async {
        var completed: [Verification] = []
        let (model, _) = await makeModel { completed.append($0) }
        model.setText("482 019")
        await eventually("verified") { model.phase == .verified }
        #expect(completed.count == 1)
        #expect(completed.first?.status == .approved)
        model.stop()
    }

    @Test("V7: a code left too long expires on the clock; the server says so too")
    func expiry() async {
        let (model, service) = await makeModel()
        model.insert("48")
        await eventually("timer") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(30))
        await eventually("timer") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(270))
        await eventually("expired") { model.phase == .expired }
        #expect(model.statusMessage?.text == "This code has expired.")
        do {
            _ = try await service.check(id: "vf_preview1", code: "482019")
            Issue.record("an expired code was accepted")
        } catch {
            #expect(error == .expired)
        }
        model.stop()
    }

    @Test("S1: the suggestion fills one digit every 60 ms on the clock, then submits")
    func suggestionFill() async {
        let (model, service) = await makeModel()
        model.offerSuggestion(await service.sentCodes.last)
        #expect(model.shownSuggestion == "482019")
        model.acceptSuggestion()
        #expect(model.shownSuggestion == nil)
        for expected in ["4", "48", "482", "4820", "48201"] {
            await eventually("a fill step sleeps") { clock.sleeperCount == 2 }
            clock.advance(by: .milliseconds(60))
            await eventually("fill \(expected)") { model.codeText == expected }
            #expect(model.hapticEvent?.haptic == .pop)
        }
        await eventually("last step sleeps") { clock.sleeperCount == 2 }
        clock.advance(by: .milliseconds(60))
        await eventually("verified") { model.phase == .verified }
        model.stop()
    }

    @Test("V9: a network failure keeps the code and a retry verifies it")
    func networkRetry() async {
        let (model, service) = await makeModel()
        await service.failNext(.check, with: .networkFailure)
        model.insert("482019")
        await eventually("failure shown") { model.canRetry }
        #expect(model.statusMessage?.text == "Couldn't reach the server. Try again.")
        #expect(model.codeText == "482019")
        #expect(await service.judgedChecks == 0)
        model.retry()
        await eventually("verified") { model.phase == .verified }
        model.stop()
    }

    @Test("a refused destination shows why and starts nothing")
    func badDestination() async {
        let clock = self.clock
        let model = VerificationModel(
            service: PreviewVerificationService(now: { clock.date }), clock: clock, now: { clock.date })
        await model.start(to: "not a number")
        #expect(model.statusMessage?.text == ScreenText.english.invalidDestination)
        #expect(!model.isInputEnabled)
    }
}
