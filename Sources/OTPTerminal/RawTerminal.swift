#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// State shared with the signal handlers. Written only by `RawTerminal` on the main thread
// before the handlers are installed and after they are removed; read by the handlers.
nonisolated(unsafe) private var savedAttributes = termios()
nonisolated(unsafe) private var rawModeActive: sig_atomic_t = 0
nonisolated(unsafe) private var restoreSequence: UnsafeMutablePointer<UInt8>?
nonisolated(unsafe) private var restoreSequenceLength = 0

/// Puts the terminal back: only async-signal-safe calls (`write`, `tcsetattr`).
private func restoreTerminalFromAnyContext() {
    guard rawModeActive != 0 else { return }
    rawModeActive = 0
    if let restoreSequence {
        _ = write(STDOUT_FILENO, restoreSequence, restoreSequenceLength)
    }
    _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedAttributes)
}

/// Restores the terminal, then lets the signal do what it does by default.
private func restoreAndReraise(_ signalNumber: Int32) {
    restoreTerminalFromAnyContext()
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}

private func restoreAtExit() {
    restoreTerminalFromAnyContext()
}

/// The terminal in raw mode, restored on every exit path.
///
/// Raw mode turns off echo, line editing and signal keys (Ctrl-C arrives as a
/// key). The terminal is restored by ``restore()``, at process exit, and on
/// SIGTERM, SIGINT, SIGHUP and the crash signals (SIGSEGV, SIGBUS, SIGILL,
/// SIGABRT, SIGTRAP, SIGFPE), whose handlers then re-raise the signal.
public final class RawTerminal {
    /// Why raw mode could not be entered.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Standard input or output is not a terminal.
        case notATerminal
        /// The terminal refused its settings.
        case attributes(Int32)

        /// A sentence for people.
        public var description: String {
            switch self {
            case .notATerminal:
                "this screen needs an interactive terminal, and standard input is not one "
                    + "(for scripts, use `otp start`, `otp check` and `otp status`)"
            case .attributes(let code): "the terminal refused raw mode (errno \(code))"
            }
        }
    }

    private static let handledSignals: [Int32] = [
        SIGTERM, SIGINT, SIGHUP, SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP, SIGFPE,
    ]
    nonisolated(unsafe) private static var atExitRegistered = false

    /// Whether standard input and output are both terminals.
    public static var isInteractive: Bool {
        isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
    }

    /// Enters raw mode, the alternate screen and bracketed paste.
    public init() throws(Failure) {
        guard Self.isInteractive else { throw .notATerminal }
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { throw .attributes(errno) }
        savedAttributes = attributes
        var raw = attributes
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
        raw.c_cflag |= tcflag_t(CS8)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw .attributes(errno) }

        let sequence = Array(
            (ANSI.bracketedPasteOff + ANSI.reset + ANSI.showCursor + ANSI.mainScreen).utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: sequence.count)
        buffer.initialize(from: sequence, count: sequence.count)
        restoreSequence?.deallocate()
        restoreSequence = buffer
        restoreSequenceLength = sequence.count
        rawModeActive = 1
        for signalNumber in Self.handledSignals {
            signal(signalNumber, restoreAndReraise)
        }
        if !Self.atExitRegistered {
            Self.atExitRegistered = true
            atexit(restoreAtExit)
        }
        emit(
            ANSI.alternateScreen + ANSI.hideCursor + ANSI.bracketedPasteOn + ANSI.move(row: 1)
                + ANSI.clearBelow)
    }

    /// Writes text to the terminal.
    public func emit(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(STDOUT_FILENO, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Leaves raw mode and puts the terminal back as it was.
    public func restore() {
        restoreTerminalFromAnyContext()
        for signalNumber in Self.handledSignals {
            signal(signalNumber, SIG_DFL)
        }
    }

    deinit {
        restore()
    }
}
