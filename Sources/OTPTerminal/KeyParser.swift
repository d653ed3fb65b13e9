/// A key or a paste read from the terminal.
public enum KeyEvent: Sendable, Hashable {
    /// A printable character.
    case character(Character)
    /// Text that arrived as one bracketed paste.
    case paste(String)
    /// Backspace or Delete.
    case backspace
    /// Tab.
    case tab
    /// Return or Enter.
    case enter
    /// Escape on its own.
    case escape
    /// The left arrow: select the digit before (F11).
    case left
    /// The right arrow: select the digit after, or go back to the end (F11).
    case right
    /// Ctrl-C.
    case interrupt
    /// Ctrl-R: resend, in every format (the only resend key when letters are code characters).
    case resend
    /// Ctrl-D.
    case endOfInput
}

/// Turns raw terminal bytes into key events, bracketed pastes and the left and right arrows included.
///
/// Bytes may arrive split anywhere; unfinished sequences wait for more bytes.
public struct KeyParser: Sendable {
    private var buffer: [UInt8] = []
    private var pasting = false
    private var pasted: [UInt8] = []

    private static let pasteStart: [UInt8] = Array("\u{1B}[200~".utf8)
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// Creates a parser.
    public init() {}

    /// Feeds bytes; returns the events they complete.
    public mutating func feed(_ bytes: [UInt8]) -> [KeyEvent] {
        buffer += bytes
        var events: [KeyEvent] = []
        while !buffer.isEmpty {
            if pasting {
                if let end = find(Self.pasteEnd) {
                    pasted += buffer[..<end]
                    buffer.removeFirst(end + Self.pasteEnd.count)
                    pasting = false
                    events.append(.paste(String(decoding: pasted, as: UTF8.self)))
                    pasted = []
                    continue
                }
                // Keep a tail that could be the start of the end marker.
                let keep = min(buffer.count, Self.pasteEnd.count - 1)
                pasted += buffer[..<(buffer.count - keep)]
                buffer.removeFirst(buffer.count - keep)
                break
            }
            let byte = buffer[0]
            if byte == 0x1B {
                if buffer.count == 1 { break }
                if buffer.starts(with: Self.pasteStart) {
                    buffer.removeFirst(Self.pasteStart.count)
                    pasting = true
                    continue
                }
                if Self.pasteStart.starts(with: buffer) { break }
                if buffer[1] == UInt8(ascii: "[") || buffer[1] == UInt8(ascii: "O") {
                    // An escape sequence: the arrows (`ESC [ D`, `ESC O D` in application mode, with
                    // modifiers `ESC [ 1 ; 5 D`) are read; others (function keys) are skipped whole.
                    guard let end = buffer.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) })
                    else {
                        break
                    }
                    switch buffer[end] {
                    case UInt8(ascii: "D"): events.append(.left)
                    case UInt8(ascii: "C"): events.append(.right)
                    default: break
                    }
                    buffer.removeFirst(end + 1)
                    continue
                }
                buffer.removeFirst()
                events.append(.escape)
                continue
            }
            switch byte {
            case 0x7F, 0x08:
                events.append(.backspace)
                buffer.removeFirst()
            case 0x09:
                events.append(.tab)
                buffer.removeFirst()
            case 0x0D, 0x0A:
                events.append(.enter)
                buffer.removeFirst()
            case 0x03:
                events.append(.interrupt)
                buffer.removeFirst()
            case 0x04:
                events.append(.endOfInput)
                buffer.removeFirst()
            case 0x12:
                events.append(.resend)
                buffer.removeFirst()
            case 0x00..<0x20:
                buffer.removeFirst()
            default:
                let length = Self.utf8Length(byte)
                if buffer.count < length { return events }
                let scalarBytes = Array(buffer[..<length])
                buffer.removeFirst(length)
                if let character = String(validating: scalarBytes, as: UTF8.self)?.first {
                    events.append(.character(character))
                }
            }
        }
        return events
    }

    /// Ends input: a lone pending Escape becomes an event.
    public mutating func flush() -> [KeyEvent] {
        guard !pasting, buffer == [0x1B] else { return [] }
        buffer = []
        return [.escape]
    }

    private func find(_ marker: [UInt8]) -> Int? {
        guard buffer.count >= marker.count else { return nil }
        for start in 0...(buffer.count - marker.count)
        where buffer[start..<(start + marker.count)].elementsEqual(marker) {
            return start
        }
        return nil
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xF7: 4
        case 0xE0...0xEF: 3
        case 0xC0...0xDF: 2
        default: 1
        }
    }
}
