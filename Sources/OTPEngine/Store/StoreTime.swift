import Foundation

/// Conversions between dates and the whole milliseconds since 1970 that every store keeps.
public enum StoreTime {
    /// Whole milliseconds since 1970 for a date, to the nearest millisecond.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date at a number of whole milliseconds since 1970.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A date moved to a whole millisecond, exactly as a store gives it back.
    public static func truncated(_ date: Date) -> Date {
        Self.date(milliseconds: milliseconds(date))
    }

    /// Whole milliseconds in a duration, rounded down.
    public static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole seconds to wait for a duration in milliseconds, rounded up and at least one.
    public static func retrySeconds(milliseconds: Int64) -> Int {
        Int(max(1, (milliseconds + 999) / 1000))
    }
}

extension Date {
    /// The date a duration later.
    func adding(_ duration: Duration) -> Date {
        StoreTime.date(milliseconds: StoreTime.milliseconds(self) + StoreTime.milliseconds(duration))
    }
}
