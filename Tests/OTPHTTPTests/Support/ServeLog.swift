import Foundation

/// The JSON log lines `otp serve` writes to standard error, read back.
enum ServeLog {
    /// Each line of `text` as a JSON object; a line that is not one fails the caller's expectation
    /// through an empty object with only `"notJSON"` set to the line.
    static func objects(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object ?? ["notJSON": String(line)]
        }
    }

    /// Each line as `LEVEL: MESSAGE`, or as it is when it is not a JSON log line.
    static func summaries(_ text: String) -> [String] {
        objects(text).map { object in
            if let line = object["notJSON"] as? String { return line }
            return "\(object["level"] as? String ?? "?"): \(object["message"] as? String ?? "?")"
        }
    }

    /// The URL in a `listening on http://…` start line, or `nil`.
    static func listeningURL(_ line: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let message = object["message"] as? String, message.hasPrefix("listening on http://")
        else { return nil }
        return String(message.dropFirst("listening on ".count))
    }
}
