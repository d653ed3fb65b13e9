import Foundation
import OTPCore

/// Writes one JSON line per request: time, method, route template, status, duration, a note.
///
/// The note is at most a verification id prefix: codes and destinations never get here because no
/// part of a request body or header is ever passed in.
public struct RequestLog: Sendable {
    private let write: @Sendable (String) -> Void
    private let now: @Sendable () -> Date

    /// Writes to standard error with one `write(2)` per line, so lines never interleave.
    public static let standardError = RequestLog(now: { Date() }) { line in
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(2, $0.baseAddress, $0.count) }
    }

    /// Writes nowhere.
    public static let silent = RequestLog(now: { Date() }) { _ in }

    /// Creates a log that hands each line (ending in a newline) to `write`.
    public init(now: @escaping @Sendable () -> Date, write: @escaping @Sendable (String) -> Void) {
        self.now = now
        self.write = write
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
        let milliseconds = "\(microseconds / 1000).\(String(1000 + microseconds % 1000).dropFirst())"
        var line = "{\"time\":\"\(ResponseJSON.timestamp(time))\",\"method\":\(quoted(request.method))"
        line += ",\"route\":\(quoted(request.route)),\"status\":\(request.status.map(String.init) ?? "null")"
        line += ",\"durationMs\":\(milliseconds)"
        if let note = request.note {
            line += ",\"verification\":\(quoted(note))"
        }
        if !request.completed {
            line += ",\"completed\":false"
        }
        return line + "}\n"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
