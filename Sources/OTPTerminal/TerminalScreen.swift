import Foundation
import OTPCore

/// Runs the verification screen in a terminal: keys to the model, the model to the screen.
@MainActor
public final class TerminalScreen {
    /// Why the screen stopped.
    public enum Exit: Sendable, Equatable {
        /// The user pressed q (when it is not a code character), Escape or Ctrl-C.
        case quit
        /// Standard input ended.
        case endOfInput
    }

    /// The shake's frames in columns and seconds: OTPCore's decaying oscillation (F6), a column per 3 points.
    public static func shakeFrames(reduceMotion: Bool) -> [(columns: Int, seconds: Double)] {
        Motion.shake(reduceMotion: reduceMotion).map { (Int(($0.value / 3).rounded()), $0.duration) }
    }

    private let model: VerificationModel
    private let renderer: TerminalRenderer
    private let reduceMotion: Bool
    private let output: (String) -> Void
    private var diff = FrameDiff()
    private var shakeOffset = 0
    private var lastShake: Int

    /// Creates a screen over a model.
    ///
    /// - Parameters:
    ///   - model: The screen's behaviour.
    ///   - color: Whether to draw colours (off when `NO_COLOR` is set).
    ///   - reduceMotion: No shake, only the colour and the message (F6).
    ///   - output: Where the escape sequences go.
    public init(model: VerificationModel, color: Bool, reduceMotion: Bool, output: @escaping (String) -> Void)
    {
        self.model = model
        self.renderer = TerminalRenderer(color: color)
        self.reduceMotion = reduceMotion
        self.output = output
        self.lastShake = model.shakeTrigger
        // A terminal's keyboard always reaches the screen.
        model.isFocused = true
    }

    /// What a key does; returns an exit when the key ends the screen.
    public func handle(_ event: KeyEvent) -> Exit? {
        switch event {
        case .character(let character):
            let isCodeCharacter = !CodeNormalizer.normalizeUncut(String(character), for: model.machine.format)
                .isEmpty
            if !isCodeCharacter {
                switch character {
                case "q", "Q": return .quit
                case "r", "R": model.resend()
                default: break
                }
            } else {
                model.insert(String(character))
            }
        case .paste(let text): model.insert(text)
        case .backspace: model.deleteBackward()
        case .tab: model.acceptSuggestion()
        case .left: model.moveSelection(by: -1)
        case .right: model.moveSelection(by: 1)
        case .enter: model.retry()
        case .resend: model.resend()
        case .escape, .interrupt: return .quit
        case .endOfInput: return .endOfInput
        }
        return nil
    }

    /// Draws the screen, rewriting only the lines that changed.
    public func draw() {
        if model.shakeTrigger != lastShake {
            lastShake = model.shakeTrigger
            startShake()
        }
        let lines = renderer.render(ScreenView(model: model), shakeOffset: shakeOffset)
        let text = diff.update(to: lines)
        if !text.isEmpty { output(text) }
    }

    /// Redraws everything on the next draw, after the terminal was cleared or resized.
    public func invalidate() {
        diff.invalidate()
    }

    /// Runs until the user quits or input ends, redrawing on every key and ten times a second.
    public func run(events: AsyncStream<KeyEvent>) async -> Exit {
        draw()
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                self?.draw()
            }
        }
        defer { ticker.cancel() }
        for await event in events {
            if let exit = handle(event) { return exit }
            draw()
        }
        return .endOfInput
    }

    private func startShake() {
        let frames = Self.shakeFrames(reduceMotion: reduceMotion)
        guard !frames.isEmpty else { return }
        Task { [weak self] in
            for frame in frames {
                guard let self else { return }
                self.shakeOffset = frame.columns
                self.draw()
                try? await Task.sleep(for: .milliseconds(Int(frame.seconds * 1000)))
            }
            self?.shakeOffset = 0
            self?.draw()
        }
    }
}
