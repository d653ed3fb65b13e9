import OTPTestSupport
import Testing

@testable import OTPCore

@Suite struct CodeNormalizerTests {
    static let six = CodeFormat()
    static let alnum = CodeFormat(length: 6, kind: .alphanumeric)

    /// (input, format, expected) — F3 for typing, paste and autofill alike.
    static let table: [(String, CodeFormat, String)] = [
        ("482019", six, "482019"),
        ("482 019", six, "482019"),
        (" 482019 ", six, "482019"),
        ("482-019", six, "482019"),
        ("482.019", six, "482019"),
        ("4 8 2 0 1 9", six, "482019"),
        ("48-20-19", six, "482019"),
        ("G-482019", six, "482019"),
        ("G-482 019", six, "482019"),
        ("g-482019", six, "482019"),
        ("٤٨٢٠١٩", six, "482019"),
        ("４８２０１９", six, "482019"),
        ("۴۸۲۰۱۹", six, "482019"),
        ("४८२०१९", six, "482019"),
        ("482019482019", six, "482019"),
        ("482 019 482 019", six, "482019"),
        ("٤٨٢٠١٩٤٨٢٠١٩", six, "482019"),
        ("4820194820", six, "482019"),
        ("1234567890", six, "123456"),
        ("Your code is 482019", six, "482019"),
        ("482019\n", six, "482019"),
        ("4\u{200B}82019", six, "482019"),
        ("", six, ""),
        ("   ", six, ""),
        ("abc", six, ""),
        ("-", six, ""),
        ("G-", six, ""),
        ("48", six, "48"),
        ("4👍8", six, "48"),
        ("½⅓", six, ""),
        ("①②③", six, ""),
        ("²³", six, ""),
        ("12345678", CodeFormat(length: 8), "12345678"),
        ("1234 5678", CodeFormat(length: 8), "12345678"),
        ("12341234", CodeFormat(length: 4), "1234"),
        ("123412345", CodeFormat(length: 4), "1234"),
        ("ab12cd", alnum, "AB12CD"),
        ("AB-12-CD", alnum, "AB12CD"),
        ("ab 12 cd", alnum, "AB12CD"),
        ("ＡＢ１２ｃｄ", alnum, "AB12CD"),
        ("G-AB12CD", alnum, "AB12CD"),
        ("ABC-123", alnum, "ABC123"),
        ("ab12cdab12cd", alnum, "AB12CD"),
        ("é12345", alnum, "12345"),
        ("ß12345", alnum, "12345"),
        ("Your code is AB12CD", alnum, "AB12CD"),
        ("Your code is ab12cd. It expires in 10 minutes.", alnum, "AB12CD"),
        ("Your code is ABCDEF", alnum, "ABCDEF"),
        ("Code: G-AB12CD", alnum, "AB12CD"),
        ("AB12CD AB12CD", alnum, "AB12CD"),
        ("ABCDEF AB12CD", alnum, "AB12CD"),
        ("ABCDEF GHIJKL", alnum, "ABCDEF"),
        ("AB12CD EF34GH", alnum, "AB12CD"),
        ("no code here", alnum, "NOCODE"),
    ]

    @Test("F3: the normalisation table", arguments: table)
    func normalisationTable(input: String, format: CodeFormat, expected: String) {
        #expect(CodeNormalizer.normalize(input, for: format) == expected)
    }

    @Test("F3: the table holds at least 40 inputs, wrong ones included")
    func tableSize() {
        #expect(Self.table.count >= 40)
        #expect(Self.table.contains { $0.2.count < $0.1.length })
    }

    @Test("F3 server side: no cut, a doubled code is kept once, other long text stays long")
    func uncut() {
        #expect(CodeNormalizer.normalizeUncut("482019482019", for: Self.six) == "482019")
        #expect(CodeNormalizer.normalizeUncut("4820194820", for: Self.six) == "4820194820")
        #expect(CodeNormalizer.normalizeUncut("482019482018", for: Self.six) == "482019482018")
        #expect(CodeNormalizer.normalizeUncut("٤٨٢ ٠١٩", for: Self.six) == "482019")
    }

    @Test("server side: a whole code, normalised, or nil for text that is not exactly one code")
    func wholeCode() {
        let alnum = CodeFormat(length: 6, kind: .alphanumeric)
        #expect(CodeNormalizer.wholeCode("482019", for: Self.six) == "482019")
        #expect(CodeNormalizer.wholeCode("482019482019", for: Self.six) == "482019")
        #expect(CodeNormalizer.wholeCode("٤٨٢ ٠١٩", for: Self.six) == "482019")
        #expect(CodeNormalizer.wholeCode("G-482019", for: Self.six) == "482019")
        #expect(CodeNormalizer.wholeCode("ab12cd", for: alnum) == "AB12CD")
        for text in ["48201", "4820194", "48201a", "", "482019482018", "٤٨٢٠١"] {
            #expect(CodeNormalizer.wholeCode(text, for: Self.six) == nil, "\(text)")
        }
        #expect(CodeNormalizer.wholeCode("123456", for: alnum) == "123456")
        #expect(CodeNormalizer.wholeCode("ab12c", for: alnum) == nil)
    }

    @Test("F2: lengths outside 4–8 are clamped")
    func clamping() {
        #expect(CodeFormat(length: 2).length == 4)
        #expect(CodeFormat(length: 0).length == 4)
        #expect(CodeFormat(length: -5).length == 4)
        #expect(CodeFormat(length: 9).length == 8)
        #expect(CodeFormat(length: .max).length == 8)
        #expect(CodeFormat().length == 6)
        #expect(CodeFormat(length: 6).groups == [3, 3])
        #expect(CodeFormat(length: 8).groups == [4, 4])
        #expect(CodeFormat(length: 4).groups == [4])
    }

    /// A random string drawn from many Unicode planes, controls and combining marks included.
    static func randomString(_ rng: inout SeededGenerator) -> String {
        let ranges: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0x00...0x1F, 0x0660...0x0669, 0x06F0...0x06F9, 0x0966...0x096F, 0xFF10...0xFF19,
            0xFF21...0xFF5A, 0x0300...0x036F, 0x2000...0x206F, 0x1F300...0x1F6FF, 0x4E00...0x4E80,
            0x1D7CE...0x1D7FF, 0xE000...0xE0FF, 0x10000...0x10FFFF,
        ]
        var text = ""
        for _ in 0..<Int.random(in: 0...24, using: &rng) {
            let range = ranges[Int.random(in: 0..<ranges.count, using: &rng)]
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    @Test("F3 property: any input through any entry point keeps only format characters, never over length")
    func property() {
        var rng = SeededGenerator(seed: 0x0_7D_2026)
        for format in [CodeFormat(length: 4), Self.six, CodeFormat(length: 8), Self.alnum] {
            var entry = CodeEntry(format: format)
            for _ in 0..<3_000 {
                let text = Self.randomString(&rng)
                let normalized = CodeNormalizer.normalize(text, for: format)
                #expect(normalized.count <= format.length)
                #expect(normalized.allSatisfy(format.allows))
                switch Int.random(in: 0..<6, using: &rng) {
                case 0, 1: entry.insert(text)
                case 2: entry.apply(text: text)
                case 3: entry.apply(text: entry.value + text)
                case 4: entry.deleteBackward()
                default:
                    if Bool.random(using: &rng) { entry.markRejected() } else { _ = entry.takeSubmission() }
                }
                #expect(entry.value.count <= format.length)
                #expect(entry.value.allSatisfy(format.allows))
            }
        }
    }
}
