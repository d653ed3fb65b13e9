import Foundation

/// A verification as the server answered it, with the server's own time at the answer (UX V13).
///
/// The screen turns the verification's times (``Verification/expiresAt``,
/// ``Verification/resendAvailableAt``) into durations from ``serverDate``, so a phone clock
/// minutes off changes nothing the user sees.
public struct ServerAnswer: Sendable, Equatable {
    /// The verification the server returned.
    public var verification: Verification
    /// The server's time when it answered (its `Date` header), or `nil` when the service does not say.
    public var serverDate: Date?

    /// Creates an answer.
    public init(_ verification: Verification, serverDate: Date?) {
        self.verification = verification
        self.serverDate = serverDate
    }

    /// Creates an answer from an HTTP `Date` header's value.
    ///
    /// The header counts whole seconds; a verification created within that second (a start's
    /// answer) carries the server's time more exactly in ``Verification/createdAt``, so that is
    /// taken instead.
    public init(_ verification: Verification, httpDate: String?) {
        let date = httpDate.flatMap(Self.date(fromHTTPDate:))
        if let date, verification.createdAt >= date, verification.createdAt < date.addingTimeInterval(1) {
            self.init(verification, serverDate: verification.createdAt)
        } else {
            self.init(verification, serverDate: date)
        }
    }

    /// Reads an HTTP date (RFC 9110's IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`).
    public static func date(fromHTTPDate text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]),
            let month = months.firstIndex(of: String(parts[2]))
        else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), (0..<24).contains(time[0]), (0..<60).contains(time[1]),
            (0...60).contains(time[2])
        else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month + 1
        components.day = day
        components.hour = time[0]
        components.minute = time[1]
        components.second = time[2]
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        return calendar.date(from: components)
    }

    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
}
