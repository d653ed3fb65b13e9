import Foundation
import OTPCore

/// Writes one JSON line per request: time, method, route template, status, duration, a note.
///
/// The note is at most a verification id prefix: codes and destinations never get here because no
/// part of a request body or header is ever passed in.
public struct RequestLog: Sendable {
    private let write: @Sendable (String) -> Void
    private let flushing: @Sendable () -> Void
    private let now: @Sendable () -> Date
    /// The buffer request lines are written straight into, when the log has one of its own: no
    /// string is made per request.
    private let buffer: LineBuffer?

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

    /// Writes the line for a finished request.
    public func record(_ request: CompletedRequest) {
        let time = now()
        if let buffer {
            buffer.append(writing: { Self.line(request, at: time, into: &$0) })
        } else {
            write(Self.line(request, at: time))
        }
    }

    /// Writes a line about the server itself, such as `{"time":…,"event":"send_cap_reached","cap":"global_sends"}`.
    ///
    /// Fields are names and fixed values chosen by the server, never request content.
    public func event(_ name: String, _ fields: KeyValuePairs<String, String>) {
        var line = "{\"time\":\"\(ResponseJSON.timestamp(now()))\",\"event\":\(Self.quoted(name))"
        for (key, value) in fields {
            line += ",\(Self.quoted(key)):\(Self.quoted(value))"
        }
        write(line + "}\n")
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
        out.append(contentsOf: #"","method":"#.utf8)
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
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(UInt8(ascii: "0") + byte >> 4)
                let low = byte & 0xF
                out.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
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
