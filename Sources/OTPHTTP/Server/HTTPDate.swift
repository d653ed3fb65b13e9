import Foundation
import OTPCore
import OTPEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header of every answer, from the server's own clock: the time its JSON times are
/// measured against, so a client can work from the server's time (UX V13) even when the server's
/// clock is not the machine's (an embedding program's, a test's).
///
/// RFC 9110's IMF-fixdate, such as `Fri, 04 Dec 2026 03:39:51 GMT`, made once per second.
final class HTTPDate: Sendable {
    private let clock: @Sendable () -> Date
    private let cache = Locked<(second: Int64, text: String)>((Int64.min, ""))

    init(clock: @escaping @Sendable () -> Date) {
        self.clock = clock
    }

    /// The header's value now.
    var now: String {
        let second = Int64(clock().timeIntervalSince1970.rounded(.down))
        if let cached = cache.withLock({ $0.second == second ? $0.text : nil }) { return cached }
        let text = Self.format(second)
        cache.withLock { $0 = (second, text) }
        return text
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The IMF-fixdate of a second since 1970.
    static func format(_ second: Int64) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
