import OTPCore

/// Draws the verification screen as lines of terminal text (UX V1–V10).
///
/// It is a pure function of a ``ScreenView``: tests give a state and compare the
/// exact text. With colours off, every state still reads from the text alone:
/// the next cell has a heavy border, a cell selected to correct a double one (F11),
/// and the status says what happened.
public struct TerminalRenderer: Sendable {
    /// Whether to draw colours and attributes.
    public var color: Bool
    /// Columns every line starts at.
    public var indent: Int

    /// Creates a renderer.
    public init(color: Bool, indent: Int = 4) {
        self.color = color
        self.indent = indent
    }

    /// The key hints under the screen, in English.
    public static let hints = ScreenText.english.terminalHints

    /// The screen as lines; `shakeOffset` moves the cells sideways for one frame of the shake (F6).
    public func render(_ view: ScreenView, shakeOffset: Int = 0) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = [""]
        lines.append(pad + TerminalStyle.bold.apply(view.title, color: color))
        if view.isAuthenticator {
            lines.append(pad + view.sentTo)
            lines.append(pad)
        } else if view.destination.isEmpty {
            lines.append(pad + (view.isStarting ? view.text.sendingCode : ""))
            lines.append(pad)
        } else {
            lines.append(pad + view.sentTo)
            lines.append(pad + TerminalStyle.bold.apply(view.destination, color: color))
        }
        // What the code approves, above the cells (V16).
        lines.append(view.transaction.map { pad + TerminalStyle.bold.apply($0, color: color) } ?? "")
        let cellPad = String(repeating: " ", count: max(0, indent + shakeOffset))
        for row in cellRows(view) {
            lines.append(cellPad + row)
        }
        lines.append("")
        if let status = view.status {
            lines.append(pad + style(for: status.role).apply(status.text, color: color))
        } else {
            lines.append(pad)
        }
        // Try again, after a failed first send or a check without an answer (V9, V11).
        let tryAgain = TerminalStyle.accent.apply("[Enter] " + view.text.tryAgain, color: color)
        lines.append(view.canRetry ? pad + tryAgain : "")
        // The key hint shows only when the key works, so the state reads without colours.
        let resendKey = view.lettersAreCode ? "[Ctrl-R] " : "[r] "
        let resend = view.isResendEnabled ? resendKey + view.resendLabel : view.resendLabel
        let resendStyle = view.isResendEnabled ? TerminalStyle.accent : .dim
        lines.append(pad + (view.isResendVisible ? resendStyle.apply(resend, color: color) : ""))
        lines.append("")
        if let suggestion = view.suggestion {
            let bar = "[Tab] \(view.suggestionSource)  \(suggestion)"
            lines.append(pad + TerminalStyle.inverse.apply(" \(bar) ", color: color))
        } else {
            lines.append(pad)
        }
        if let toast = view.toast {
            lines.append(pad + TerminalStyle.inverse.apply(" \(toast) ", color: color))
        } else {
            lines.append(pad)
        }
        lines.append("")
        let hints = view.lettersAreCode ? view.text.terminalHintsLetters : view.text.terminalHints
        lines.append(pad + TerminalStyle.dim.apply(hints, color: color))
        return lines
    }

    /// The three text rows of the cells: top border, content, bottom border.
    private func cellRows(_ view: ScreenView) -> [String] {
        var rows = ["", "", ""]
        for (groupIndex, group) in view.cellGroups.enumerated() {
            if groupIndex > 0 {
                rows[0] += "   "
                rows[1] += " – "
                rows[2] += "   "
            }
            for cell in group {
                let box = box(for: cell)
                let style = cell.isNext ? TerminalStyle.accent : style(for: cell.role)
                for line in 0..<3 {
                    rows[line] += style.apply(box[line], color: color)
                }
            }
        }
        return rows
    }

    private func box(for cell: CodeCell) -> [String] {
        let text = cell.text.isEmpty ? " " : cell.text
        if cell.isSelected {
            // A cell selected to correct (F11): a double border, so it reads without colours.
            return ["╔═══╗", "║ \(text) ║", "╚═══╝"]
        }
        if cell.isNext {
            return ["┏━━━┓", "┃ \(text) ┃", "┗━━━┛"]
        }
        return ["┌───┐", "│ \(text) │", "└───┘"]
    }

    private func style(for role: ColorRole) -> TerminalStyle {
        switch role {
        case .neutral: .plain
        case .progress, .disabled: .dim
        case .error: .error
        case .success: .success
        }
    }
}
