import Foundation
import OTPCore
import Testing

@testable import OTPTerminal

@Suite struct TerminalRendererTests: TerminalFixture {
    func text(_ machine: VerificationMachine) -> String {
        renderer.render(ScreenView(machine: machine)).joined(separator: "\n")
    }

    @Test("idle, six digits: the whole screen, exactly")
    func idleSix() {
        var machine = machine()
        machine.tick(at: .seconds(6))
        let expected = """

                Enter the code
                We sent a 6-digit code to
                +1 ••• ••• 0100

                ┏━━━┓┌───┐┌───┐   ┌───┐┌───┐┌───┐
                ┃   ┃│   ││   │ – │   ││   ││   │
                ┗━━━┛└───┘└───┘   └───┘└───┘└───┘

                

                Resend in 0:24

                
                

                digits type · ← → select a digit · Backspace deletes · Tab takes the suggestion · r resends · q quits
            """
        #expect(text(machine) == expected)
    }

    @Test("filling, four digits: one group, the next cell highlighted")
    func fillingFour() {
        var machine = machine(length: 4)
        _ = machine.insert("48", at: .zero)
        let lines = renderer.render(ScreenView(machine: machine))
        #expect(lines[5] == "    ┌───┐┌───┐┏━━━┓┌───┐")
        #expect(lines[6] == "    │ 4 ││ 8 │┃   ┃│   │")
        #expect(lines[7] == "    └───┘└───┘┗━━━┛└───┘")
        #expect(lines[2] == "    We sent a 4-digit code to")
    }

    @Test("eight digits are two groups of four")
    func eight() {
        var machine = machine(length: 8)
        _ = machine.insert("1234567", at: .zero)
        let lines = renderer.render(ScreenView(machine: machine))
        #expect(lines[6] == "    │ 1 ││ 2 ││ 3 ││ 4 │ – │ 5 ││ 6 ││ 7 │┃   ┃")
        #expect(lines[2] == "    We sent an 8-digit code to")
    }

    @Test("verifying, invalid, locked, expired and verified each read from the text alone")
    func phases() {
        var verifying = machine()
        _ = verifying.insert("482019", at: .zero)
        #expect(renderer.render(ScreenView(machine: verifying))[9] == "    Verifying…")
        #expect(renderer.render(ScreenView(machine: verifying))[6] == "    │ 4 ││ 8 ││ 2 │ – │ 0 ││ 1 ││ 9 │")

        var invalid = verifying
        _ = invalid.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        #expect(
            renderer.render(ScreenView(machine: invalid))[9] == "    Code doesn't match. 2 attempts left.")

        var locked = verifying
        _ = locked.checkAnswered(.failure(.incorrectCode(attemptsLeft: 0)), at: .zero, serverNow: wall)
        #expect(
            renderer.render(ScreenView(machine: locked))[9] == "    Too many attempts. Request a new code.")

        var expired = machine()
        expired.tick(at: .seconds(300))
        let expiredLines = renderer.render(ScreenView(machine: expired))
        #expect(expiredLines[9] == "    This code has expired.")
        #expect(expiredLines[11] == "    [r] Resend code")

        var verified = verifying
        var approved = verification(length: 6)
        approved.status = .approved
        _ = verified.checkAnswered(.success(approved), at: .zero, serverNow: wall)
        let verifiedLines = renderer.render(ScreenView(machine: verified))
        #expect(verifiedLines[9] == "    Verified")
        #expect(verifiedLines[11] == "    ", "no Resend once verified")
        var lockedLines = renderer.render(ScreenView(machine: locked))
        #expect(lockedLines[11] == "    Resend in 0:30", "no key hint while Resend is off")
        locked.tick(at: .seconds(30))
        lockedLines = renderer.render(ScreenView(machine: locked))
        #expect(lockedLines[11] == "    [r] Resend code")
    }

    @Test("idle phase before a code was sent says it is sending")
    func starting() {
        let lines = renderer.render(ScreenView(machine: VerificationMachine(), isStarting: true))
        #expect(lines[2] == "    Sending a code…")
    }

    @Test("the suggestion bar and the toast")
    func suggestionAndToast() {
        var machine = machine()
        machine.offerSuggestion("482019")
        var lines = renderer.render(ScreenView(machine: machine))
        #expect(lines[13] == "     [Tab] From Messages  482019 ")
        machine.tick(at: .seconds(30))
        _ = machine.resendPressed(at: .seconds(30))
        machine.resendAnswered(.success(verification(length: 6)), at: .seconds(30), serverNow: wall)
        lines = renderer.render(ScreenView(machine: machine))
        #expect(lines[14] == "     New code sent ")
    }

    @Test("a shake frame moves only the cells")
    func shake() {
        let plain = renderer.render(ScreenView(machine: machine()))
        let shaken = renderer.render(ScreenView(machine: machine()), shakeOffset: 3)
        #expect(shaken[5] == "   " + plain[5])
        #expect(shaken[2] == plain[2])
    }

    @Test("colours on: error cells red, success green, verifying dimmed; off: no escape at all")
    func colours() {
        var invalid = machine()
        _ = invalid.insert("111111", at: .zero)
        _ = invalid.checkAnswered(.failure(.incorrectCode(attemptsLeft: 2)), at: .zero, serverNow: wall)
        let coloured = TerminalRenderer(color: true).render(ScreenView(machine: invalid))
        #expect(coloured[6].contains("\u{1B}[31m│ 1 │"))
        #expect(coloured[9].contains("\u{1B}[31mCode doesn't match."))
        #expect(!renderer.render(ScreenView(machine: invalid)).joined().contains("\u{1B}"))
    }
}

@Suite struct KeyParserTests {
    @Test("keys, control keys and UTF-8 characters")
    func keys() {
        var parser = KeyParser()
        let events = parser.feed(Array("4٨\u{7F}\t\r\u{03}q".utf8))
        #expect(
            events == [
                .character("4"), .character("٨"), .backspace, .tab, .enter, .interrupt, .character("q"),
            ])
    }

    @Test("a bracketed paste arrives as one event, even split across reads")
    func paste() {
        var parser = KeyParser()
        var events = parser.feed(Array("\u{1B}[200~482 0".utf8))
        #expect(events.isEmpty)
        events = parser.feed(Array("19\u{1B}[20".utf8))
        #expect(events.isEmpty)
        events = parser.feed(Array("1~5".utf8))
        #expect(events == [.paste("482 019"), .character("5")])
    }

    @Test("up and down arrows are skipped, a lone Escape is Escape")
    func escapes() {
        var parser = KeyParser()
        #expect(parser.feed(Array("\u{1B}[A1".utf8)) == [.character("1")])
        #expect(parser.feed([0x1B]).isEmpty)
        #expect(parser.flush() == [.escape])
    }

    @Test("a split UTF-8 character waits for its last byte; invalid bytes are dropped")
    func splitUTF8() {
        var parser = KeyParser()
        let bytes = Array("٤".utf8)
        #expect(parser.feed([bytes[0]]).isEmpty)
        #expect(parser.feed([bytes[1]]) == [.character("٤")])
        #expect(parser.feed([0xFF, 0x31]) == [.character("1")])
    }
}

@Suite struct FrameDiffTests {
    @Test("only changed lines are rewritten")
    func diff() {
        var diff = FrameDiff()
        let first = diff.update(to: ["a", "b", "c"])
        #expect(first.contains("a") && first.contains("b") && first.contains("c"))
        let second = diff.update(to: ["a", "B", "c"])
        #expect(second == ANSI.move(row: 2) + ANSI.clearLine + "B")
        #expect(diff.update(to: ["a", "B", "c"]).isEmpty)
        #expect(diff.update(to: ["a"]) == ANSI.move(row: 2) + ANSI.clearBelow)
    }

    @Test("an authenticator factor's screen shows its prompt and no Resend")
    func authenticator() {
        var machine = VerificationMachine()
        machine.beganAuthenticator(
            factorID: "tf_test", attemptsLeft: 10, at: .zero,
            serverNow: Date(timeIntervalSince1970: 1_795_000_000))
        let text = TerminalRenderer(color: false).render(ScreenView(machine: machine)).joined(separator: "\n")
        #expect(text.contains("Enter the code from your authenticator app."))
        #expect(!text.contains("Resend"))
    }
}
