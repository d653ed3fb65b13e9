/// The few ANSI escape sequences the terminal screen uses.
public enum ANSI {
    /// Control Sequence Introducer.
    public static let csi = "\u{1B}["
    /// Clears from the cursor to the end of the line.
    public static let clearLine = csi + "2K"
    /// Clears from the cursor to the end of the screen.
    public static let clearBelow = csi + "J"
    /// Hides the cursor.
    public static let hideCursor = csi + "?25l"
    /// Shows the cursor.
    public static let showCursor = csi + "?25h"
    /// Switches to the alternate screen.
    public static let alternateScreen = csi + "?1049h"
    /// Switches back to the main screen.
    public static let mainScreen = csi + "?1049l"
    /// Turns bracketed paste on: pastes arrive between `ESC[200~` and `ESC[201~`.
    public static let bracketedPasteOn = csi + "?2004h"
    /// Turns bracketed paste off.
    public static let bracketedPasteOff = csi + "?2004l"
    /// Resets every text attribute.
    public static let reset = csi + "0m"

    /// Moves the cursor to a 1-based row and column.
    public static func move(row: Int, column: Int = 1) -> String {
        "\(csi)\(row);\(column)H"
    }
}

/// A text style of the terminal screen, drawn only when colours are on.
public enum TerminalStyle: Sendable, Hashable {
    /// No attribute.
    case plain
    /// Bold text.
    case bold
    /// Dimmed text.
    case dim
    /// The error colour: red.
    case error
    /// The success colour: green.
    case success
    /// The accent colour: cyan, for the focus highlight and Resend.
    case accent
    /// Reverse video, for the toast.
    case inverse

    /// The SGR parameters of the style.
    var sgr: String {
        switch self {
        case .plain: "0"
        case .bold: "1"
        case .dim: "2"
        case .error: "31"
        case .success: "32"
        case .accent: "36"
        case .inverse: "7"
        }
    }

    /// The text wrapped in the style's escape codes, or unchanged without colours.
    func apply(_ text: String, color: Bool) -> String {
        guard color, self != .plain, !text.isEmpty else { return text }
        return "\(ANSI.csi)\(sgr)m\(text)\(ANSI.reset)"
    }
}
