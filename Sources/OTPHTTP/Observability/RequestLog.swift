import Foundation
import OTPCore

/// How much a log line matters; a log writes the lines at or above its ``RequestLog/minimumLevel``.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Detail for finding a fault: each event delivery that worked, each start the guard let through.
    case debug
    /// The normal course: each request, the start line, a reload.
    case info
    /// Something an operator should look at: a failed send, a store outage, a risky setting.
    case warning
    /// A failure that refused a request or stops the server.
    case error

    /// The level's name in a log line and in `--log-level`.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// The level with this name, or `nil`.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// Orders levels from ``debug`` to ``error``.
    public static func < (left: LogLevel, right: LogLevel) -> Bool { left.rawValue < right.rawValue }
}

/// The server's one log: a JSON object per line with `time`, `level`, `message` and context fields.
///
/// Each request writes a line (method, route template, status, duration, the verification id and
/// the request id); the server's own lines (start, warnings, failed sends, store failures, event
/// deliveries, reloads) come through ``log(_:_:_:)``. Codes and destinations never get here: no part
/// of a request body or header is passed in, and callers pass only masked destinations.
public struct RequestLog: Sendable {
    private let write: @Sendable (String) -> Void
    private let flushing: @Sendable () -> Void
    private let now: @Sendable () -> Date
    /// The buffer request lines are written straight into, when the log has one of its own: no
    /// string is made per request.
    private let buffer: LineBuffer?
    /// Lines below this level are dropped; `info` unless set.
    public var minimumLevel: LogLevel = .info
    /// Fields every server line of this log carries, such as the request's id (request lines have
    /// their own).
    private var context: [(String, String)] = []

    /// Writes to standard error through a buffer: whole lines only, so lines never interleave,
    /// written when 8 KiB have gathered, every 100 ms, and by ``flush()`` (which a server's stop
    /// calls), so a graceful stop loses no line.
    public static let standardError: RequestLog = {
        let buffer = LineBuffer(descriptor: 2)
        return RequestLog(
            now: { Date() }, write: { buffer.append($0) }, flush: { buffer.flush() }, buffer: buffer)
    }()

    /// Writes nowhere.
    public static let silent = RequestLog(now: { Date() }) { _ in }

    /// Creates a log that hands each line (ending in a newline) to `write`; `flush` writes out
    /// whatever `write` holds back.
    public init(
        now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void,
        flush: @escaping @Sendable () -> Void = {}
    ) {
        self.init(now: now, write: write, flush: flush, buffer: nil)
    }

    /// A log whose request lines go straight into `buffer` (when not `nil`); other lines go to `write`.
    init(
        now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void,
        flush: @escaping @Sendable () -> Void, buffer: LineBuffer?
    ) {
        self.now = now
        self.write = write
        self.flushing = flush
        self.buffer = buffer
    }

    /// Writes out every line held back; a server calls it when it stops.
    public func flush() {
        flushing()
    }

    /// This log with `key` set to `value` on every server line it writes (``log(_:_:_:)``); an
    /// empty value adds nothing.
    public func adding(_ key: String, _ value: String) -> RequestLog {
        guard !value.isEmpty else { return self }
        var log = self
        log.context.append((key, value))
        return log
    }

    /// Whether a line of `level` would be written.
    public func writes(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// The level of a finished request's line: `error` for a 5xx answer, `info` otherwise.
    static func level(of request: CompletedRequest) -> LogLevel {
        (request.status ?? 0) >= 500 ? .error : .info
    }

    /// Writes the line for a finished request, unless its level is below the minimum.
    public func record(_ request: CompletedRequest) {
        guard writes(Self.level(of: request)) else { return }
        let time = now()
        if let buffer {
            buffer.append(writing: { Self.line(request, at: time, into: &$0) })
        } else {
            write(Self.line(request, at: time))
        }
    }

    /// Writes a line about the server itself, such as
    /// `{"time":…,"level":"warning","message":"a send cap was reached","cap":"global_sends"}`.
    ///
    /// Fields are names, fixed values and masked destinations chosen by the server, never a code or a
    /// whole destination. Nothing is written below ``minimumLevel``.
    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String> = [:]) {
        guard writes(level) else { return }
        write(Self.line(level, message, context + Array(fields), at: now()))
    }

    /// ``log(_:_:_:)`` with fields gathered at run time.
    public func log(_ level: LogLevel, _ message: String, fields: [(String, String)]) {
        guard writes(level) else { return }
        write(Self.line(level, message, context + fields, at: now()))
    }

    /// Writes a warning named by an `event` field, such as `send_cap_reached`.
    public func event(_ name: String, _ message: String, _ fields: KeyValuePairs<String, String>) {
        log(.warning, message, fields: [("event", name)] + Array(fields))
    }

    /// The JSON line of a server line, newline included.
    public static func line(
        _ level: LogLevel, _ message: String, _ fields: [(String, String)], at time: Date
    ) -> String {
        var line =
            "{\"time\":\"\(ResponseJSON.timestamp(time))\",\"level\":\"\(level.name)\",\"message\":\(quoted(message))"
        for (key, value) in fields where !["time", "level", "message"].contains(key) {
            line += ",\(quoted(key)):\(quoted(value))"
        }
        return line + "}\n"
    }

    /// The JSON line for a finished request, newline included.
    static func line(_ request: CompletedRequest, at time: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160)
        line(request, at: time, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``line(_:at:)``'s bytes.
    static func line(_ request: CompletedRequest, at time: Date, into out: inout [UInt8]) {
        let (seconds, attoseconds) = request.duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        out.append(contentsOf: #"{"time":""#.utf8)
        WireJSON.timestamp(time, into: &out)
        out.append(contentsOf: #"","level":""#.utf8)
        out.append(contentsOf: level(of: request).name.utf8)
        out.append(contentsOf: #"","message":"#.utf8)
        out.append(UInt8(ascii: "\""))
        appendEscaped(request.method, to: &out)
        out.append(UInt8(ascii: " "))
        appendEscaped(request.route, to: &out)
        out.append(UInt8(ascii: " "))
        if let status = request.status {
            WireJSON.number(status, into: &out)
        } else {
            out.append(contentsOf: "(no answer)".utf8)
        }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: #","method":"#.utf8)
        appendQuoted(request.method, to: &out)
        out.append(contentsOf: #","route":"#.utf8)
        appendQuoted(request.route, to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        if let status = request.status {
            WireJSON.number(status, into: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","durationMs":"#.utf8)
        WireJSON.number(Int(microseconds / 1000), into: &out)
        let fraction = Int(microseconds % 1000)
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        if let note = request.note {
            out.append(contentsOf: #","verification":"#.utf8)
            appendQuoted(note, to: &out)
        }
        if let requestID = request.requestID {
            out.append(contentsOf: #","requestId":"#.utf8)
            appendQuoted(requestID, to: &out)
        }
        if !request.completed {
            out.append(contentsOf: #","completed":false"#.utf8)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal: `"` and `\` escaped, control characters as
    /// `\u00XX`, every other byte as it is.
    private static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(text, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the inside of `text`'s JSON string literal, without the quotes, control characters
    /// always as `\u00XX`.
    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        WireJSON.escaped(text, into: &out, controls: .hex)
    }
}

/// Lines gathered for one file descriptor and written in as few `write(2)` calls as keep them
/// timely: at 8 KiB, at the latest 100 ms after they came (a thread of its own wakes for that),
/// and on ``flush()``.
final class LineBuffer: Sendable {
    // The lines held; the write itself happens under `writing`, which serialises the writes, so a
    // slow descriptor never holds up the threads that append.
    private let state = Locked(State())
    private let writing = Locked(())
    private let descriptor: Int32
    private static let limit = 8192

    private let interval: Duration?

    private struct State {
        /// The bytes of the lines not written yet.
        var pending: [UInt8] = []
        /// Whether the thread that writes on time runs.
        var flusherStarted = false
    }

    /// A buffer for `descriptor`, written out at least every `flushesEvery` by a thread of its own
    /// (none when `nil`: then only the size bound and ``flush()`` write).
    init(descriptor: Int32, flushesEvery interval: Duration? = .milliseconds(100)) {
        self.descriptor = descriptor
        self.interval = interval
        state.withLock { $0.pending.reserveCapacity(Self.limit * 2) }
    }

    func append(_ line: String) {
        append(writing: { $0.append(contentsOf: line.utf8) })
    }

    /// Appends one line that `write` puts straight into the buffer, under its lock.
    func append(writing write: (inout [UInt8]) -> Void) {
        let full: [UInt8]? = state.withLock { state in
            if !state.flusherStarted, let interval {
                state.flusherStarted = true
                startFlusher(every: interval)
            }
            write(&state.pending)
            guard state.pending.count >= Self.limit else { return nil }
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        if let full { writeAll(full) }
    }

    /// Writes out every line held.
    func flush() {
        let held: [UInt8] = state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        if !held.isEmpty { writeAll(held) }
    }

    private func writeAll(_ bytes: [UInt8]) {
        writing.withLock { _ in
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return  // The descriptor is gone; a log must never stop the server.
                    }
                }
            }
        }
    }

    private func startFlusher(every interval: Duration) {
        let (seconds, attoseconds) = interval.components
        let microseconds = useconds_t(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        // The log lives as long as the process; the thread sleeps between its rounds.
        let thread = Thread { [self] in
            while true {
                flush()
                usleep(microseconds)
            }
        }
        thread.name = "otp-log-flush"
        thread.start()
    }
}
