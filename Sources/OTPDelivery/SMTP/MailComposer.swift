import Foundation
import OTPEngine

/// Builds an RFC 5322 message with a plain-text and an HTML alternative, both quoted-printable UTF-8.
enum MailComposer {
    /// Whether a header value is free of line breaks, so it cannot add headers of its own.
    static func isHeaderSafe(_ value: String) -> Bool {
        !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
    }

    /// The whole message, lines ending in CRLF, ready for SMTP `DATA`.
    static func compose(
        from: String, fromName: String?, to: String, subject: String, text: String, html: String?,
        date: Date, messageID: String
    ) throws(DeliveryError) -> [UInt8] {
        guard isHeaderSafe(from), isHeaderSafe(to), isHeaderSafe(subject), isHeaderSafe(fromName ?? "")
        else {
            throw DeliveryError("a mail header holds a line break")
        }
        let sender = fromName.map { "\(encodeWord($0)) <\(from)>" } ?? from
        var lines = [
            "From: \(sender)",
            "To: \(to)",
            "Subject: \(encodeWord(subject))",
            "Date: \(rfc5322Date(date))",
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
        ]
        if let html {
            let boundary = "=_otp_\(messageID.filter { $0.isLetter || $0.isNumber })"
            lines += [
                "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
                "",
                "--\(boundary)",
            ]
            lines += part(type: "text/plain", body: text)
            lines += ["--\(boundary)"]
            lines += part(type: "text/html", body: html)
            lines += ["--\(boundary)--", ""]
        } else {
            lines += part(type: "text/plain", body: text)
        }
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    private static func part(type: String, body: String) -> [String] {
        [
            "Content-Type: \(type); charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            quotedPrintable(body),
        ]
    }

    /// A header word, as is when it is printable ASCII, else as an RFC 2047 encoded word.
    static func encodeWord(_ value: String) -> String {
        if value.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return value }
        return "=?UTF-8?B?\(Data(value.utf8).base64EncodedString())?="
    }

    /// Quoted-printable (RFC 2045) with CRLF line ends and lines of at most 76 characters.
    static func quotedPrintable(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        var out: [String] = []
        for line in normalized.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            var encoded: [UInt8] = []
            var width = 0
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let literal =
                    (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                    || ((byte == 0x20 || byte == 0x09) && !last)
                let token: [UInt8] =
                    literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                if width + token.count > 75 {
                    encoded += Array("=\r\n".utf8)
                    width = 0
                }
                encoded += token
                width += token.count
            }
            out.append(String(decoding: encoded, as: UTF8.self))
        }
        return out.joined(separator: "\r\n")
    }

    /// A date as RFC 5322 writes it, in UTC: `Mon, 30 Nov 2026 07:00:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekday = days[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        func two(_ value: Int?) -> String {
            let number = value ?? 0
            return number < 10 ? "0\(number)" : "\(number)"
        }
        return "\(weekday), \(two(parts.day)) \(month) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }
}
