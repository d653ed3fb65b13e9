/// Turns one frame into the next with as little output as possible: only changed lines are rewritten.
public struct FrameDiff: Sendable {
    private var previous: [String] = []

    /// Creates a diff with nothing drawn yet.
    public init() {}

    /// The escape sequences that turn the last frame into `lines`, drawn from row `top`.
    public mutating func update(to lines: [String], top: Int = 1) -> String {
        var output = ""
        for (index, line) in lines.enumerated() where index >= previous.count || previous[index] != line {
            output += ANSI.move(row: top + index) + ANSI.clearLine + line
        }
        if lines.count < previous.count {
            output += ANSI.move(row: top + lines.count) + ANSI.clearBelow
        }
        previous = lines
        return output
    }

    /// Forgets the last frame, so the next update draws everything.
    public mutating func invalidate() {
        previous = []
    }
}
