/// Country calling codes (ITU-T E.164): 1, 2 or 3 digits, no code a prefix of another.
package enum CallingCodes {
    /// The two-digit codes; other codes after a first digit of 2–9 have three digits, and 1 and 7 have one.
    private static let twoDigit: Set<String> = [
        "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48",
        "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66", "81",
        "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
    ]

    /// How many of the leading ASCII digits (without `+`) are the calling code: 1, 2 or 3
    /// (fewer when there are fewer digits).
    static func callingCodeLength(ofDigits digits: [UInt8]) -> Int {
        guard let first = digits.first else { return 0 }
        if first == UInt8(ascii: "1") || first == UInt8(ascii: "7") { return 1 }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        if digits.count >= 2, isDigit(first), isDigit(digits[1]),
            twoDigitCodes[Int(first - UInt8(ascii: "0")) * 10 + Int(digits[1] - UInt8(ascii: "0"))]
        {
            return 2
        }
        return min(3, digits.count)
    }

    /// ``twoDigit`` as a table indexed by the code's value.
    private static let twoDigitCodes: [Bool] = (0..<100).map { twoDigit.contains(String(format2($0))) }

    private static func format2(_ value: Int) -> String {
        String(UnicodeScalar(UInt8(0x30 + value / 10))) + String(UnicodeScalar(UInt8(0x30 + value % 10)))
    }

    /// The calling code at the start of an international number's digits (without `+`).
    package static func callingCode(ofDigits digits: String) -> String {
        guard let first = digits.first else { return "" }
        if first == "1" || first == "7" { return String(first) }
        let two = String(digits.prefix(2))
        if twoDigit.contains(two) { return two }
        return String(digits.prefix(3))
    }
}
