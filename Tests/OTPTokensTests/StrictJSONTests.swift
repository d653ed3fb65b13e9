import Testing

@testable import OTPTokens

@Suite struct StrictJSONTests {
    @Test(
        "well-formed JSON passes",
        arguments: [
            "{}", "[]", "0", "-0.5e+3", "\"\"", "true", "null",
            #"{"a":[1,{"b":null}],"c":"\u00e9\ud83d\udcf1"}"#,
            " { \"a\" : 1 } ", #"{"a":{"a":1},"b":{"a":2}}"#, #""\"\\\/\b\f\n\r\t""#, "\"ünï📱\"",
        ])
    func valid(text: String) {
        #expect(StrictJSON.isValid(Array(text.utf8)))
    }

    @Test(
        "duplicate names, trailing commas and other leniencies are refused",
        arguments: [
            #"{"alg":"EdDSA","alg":"none"}"#, #"{"alg":1,"\u0061lg":2}"#, #"{"a":{"b":1,"b":1}}"#,
            #"{"a":1,}"#, "[1,]", "", "{", "{\"a\"}", "{a:1}", "{'a':1}", "01", "1.", ".5", "+1", "1e", "-",
            "tru", "nul", "{} {}", "{}x", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"",
            "\"a\u{01}\"",
            "\"open", "{\"a\":1/*c*/}", "NaN",
            "[" + String(repeating: "[", count: 20) + String(repeating: "]", count: 21),
        ])
    func invalid(text: String) {
        #expect(!StrictJSON.isValid(Array(text.utf8)))
    }

    @Test("invalid UTF-8 in a string is refused")
    func invalidUTF8() {
        let quote = UInt8(ascii: "\"")
        for bytes in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] as [[UInt8]] {
            #expect(!StrictJSON.isValid([quote] + bytes + [quote]))
        }
        #expect(StrictJSON.isValid([quote, 0xE2, 0x82, 0xAC, quote]))
    }
}
