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

    /// Writes to standard error through a buffer: whole lines only, so lines never interleave,
    /// written when 8 KiB have gathered, every 100 ms, and by ``flush()`` (which a server's stop
    /// calls), so a graceful stop loses no line.
    public static let standardError: RequestLog = {
        let buffer = LineBuffer(descriptor: 2)
        return RequestLog(now: { Date() }, write: { buffer.append($0) }, flush: { buffer.flush() })
    }()

    /// Writes nowhere.
    public static let silent = RequestLog(now: { Date() }) { _ in }

    /// Creates a log that hands each line (ending in a newline) to `write`; `flush` writes out
    /// whatever `write` holds back.
    public init(
        now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void,
        flush: @escaping @Sendable () -> Void = {}
    ) {
        self.now = now
        self.write = write
        self.flushing = flush
    }

    /// Writes out every line held back; a server calls it when it stops.
    public func flush() {
        flushing()
    }

    /// Writes the line for a finished request.
    public func record(_ request: CompletedRequest) {
        write(Self.line(request, at: now()))
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
        let (seconds, attoseconds) = request.duration.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        var line = "{\"time\":\""
        line.reserveCapacity(160)
        line += ResponseJSON.timestamp(time)
        line += "\",\"method\":"
        appendQuoted(request.method, to: &line)
        line += ",\"route\":"
        appendQuoted(request.route, to: &line)
        line += ",\"status\":"
        line += request.status.map(String.init) ?? "null"
        line += ",\"durationMs\":"
        line += String(microseconds / 1000)
        line += "."
        line += String(1000 + microseconds % 1000).dropFirst()
        if let note = request.note {
            line += ",\"verification\":"
            appendQuoted(note, to: &line)
        }
        if !request.completed {
            line += ",\"completed\":false"
        }
        line += "}\n"
        return line
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string literal; text with nothing to escape is appended whole.
    private static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out += text
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20:
                    out += "\\u00"
                    out += scalar.value < 0x10 ? "0" : "1"
                    out += String(scalar.value % 16, radix: 16)
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// Lines gathered for one file descriptor and written in as few `write(2)` calls as keep them
/// timely: at 8 KiB, at the latest 100 ms after they came (a thread of its own wakes for that),
/// and on ``flush()``.
final class LineBuffer: @unchecked Sendable {
    // Guards `pending` and `flusherStarted`; the write itself happens under `writing`, so a
    // slow descriptor never holds up the threads that append.
    private let lock = NSLock()
    private let writing = NSLock()
    private var pending: [UInt8] = []
    private var flusherStarted = false
    private let descriptor: Int32
    private static let limit = 8192

    private let interval: Duration?

    /// A buffer for `descriptor`, written out at least every `flushesEvery` by a thread of its own
    /// (none when `nil`: then only the size bound and ``flush()`` write).
    init(descriptor: Int32, flushesEvery interval: Duration? = .milliseconds(100)) {
        self.descriptor = descriptor
        self.interval = interval
        pending.reserveCapacity(Self.limit * 2)
    }

    func append(_ line: String) {
        let full: [UInt8]? = lock.withLock {
            if !flusherStarted, let interval {
                flusherStarted = true
                startFlusher(every: interval)
            }
            pending.append(contentsOf: line.utf8)
            guard pending.count >= Self.limit else { return nil }
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        if let full { writeAll(full) }
    }

    /// Writes out every line held.
    func flush() {
        let held: [UInt8] = lock.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        if !held.isEmpty { writeAll(held) }
    }

    private func writeAll(_ bytes: [UInt8]) {
        writing.withLock {
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
