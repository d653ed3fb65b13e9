/// Country calling codes (ITU-T E.164): 1, 2 or 3 digits, no code a prefix of another.
public enum CallingCodes {
    /// The two-digit codes; other codes after a first digit of 2–9 have three digits, and 1 and 7 have one.
    private static let twoDigit: Set<String> = [
        "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48",
        "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66", "81",
        "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
    ]

    /// The calling code at the start of an international number's digits (without `+`).
    public static func callingCode(ofDigits digits: String) -> String {
        guard let first = digits.first else { return "" }
        if first == "1" || first == "7" { return String(first) }
        let two = String(digits.prefix(2))
        if twoDigit.contains(two) { return two }
        return String(digits.prefix(3))
    }
}
