import Foundation
import OTPCore
import OTPTestSupport
import Testing

@testable import OTPEngine

@Suite struct CodeGeneratorTests {
    /// Pearson's chi-square statistic of observed counts against equal expected counts.
    static func chiSquare(_ counts: [Int]) -> Double {
        let total = Double(counts.reduce(0, +))
        let expected = total / Double(counts.count)
        return counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
    }

    /// Counts per alphabet index at each position of `samples` codes.
    static func positionCounts(
        format: CodeFormat, samples: Int, using generator: inout some RandomNumberGenerator
    ) throws
        -> [[Int]]
    {
        let alphabet = CodeGenerator.alphabet(for: format)
        let index = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })
        var counts = [[Int]](repeating: [Int](repeating: 0, count: alphabet.count), count: format.length)
        for _ in 0..<samples {
            let code = CodeGenerator.code(for: format, using: &generator)
            for (position, character) in code.enumerated() {
                let slot = try #require(index[character], "\(character) is not in the alphabet")
                counts[position][slot] += 1
            }
        }
        return counts
    }

    // Critical values at p = 0.00001: 9 degrees of freedom 39.34, 35 degrees of freedom 82.64.
    @Test("each position of 100,000 system-random digit codes passes a chi-square test of uniformity")
    func digitUniformity() throws {
        var generator = SystemRandomNumberGenerator()
        let counts = try Self.positionCounts(
            format: CodeFormat(length: 6), samples: 100_000, using: &generator)
        for (position, row) in counts.enumerated() {
            let statistic = Self.chiSquare(row)
            #expect(statistic < 39.34, "position \(position): chi-square \(statistic)")
        }
    }

    @Test("each position of 100,000 alphanumeric codes passes a chi-square test of uniformity")
    func alphanumericUniformity() throws {
        var generator = SystemRandomNumberGenerator()
        let format = CodeFormat(length: 8, kind: .alphanumeric)
        let counts = try Self.positionCounts(format: format, samples: 100_000, using: &generator)
        for (position, row) in counts.enumerated() {
            #expect(Self.chiSquare(row) < 82.64, "position \(position)")
        }
    }

    @Test("the chi-square test catches the bias of a plain byte % 10")
    func chiSquareCatchesModuloBias() {
        var generator = SeededGenerator(seed: 7)
        var counts = [Int](repeating: 0, count: 10)
        for _ in 0..<1_000_000 {
            counts[Int(UInt8(truncatingIfNeeded: generator.next())) % 10] += 1
        }
        #expect(Self.chiSquare(counts) > 39.34)
    }

    @Test("bytes at or above the largest multiple of the alphabet size are rejected, not folded")
    func rejectionSampling() {
        func word(_ bytes: [UInt8]) -> UInt64 {
            bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        var generator = ScriptedGenerator([
            word([250, 251, 252, 253, 254, 255, 7, 3]), word([249, 12, 0, 99, 200, 201, 202, 203]),
        ])
        // 250–255 are thrown away; 7, 3, then 249 → 9, 12 → 2, 0 → 0, 99 → 9.
        #expect(CodeGenerator.code(for: CodeFormat(length: 6), using: &generator) == "739209")

        var letters = ScriptedGenerator([word([252, 253, 254, 255, 251, 35, 36, 71])])
        // For 36 characters the limit is 252: 251 → 251 % 36 = 35 → "Z", 35 → "Z", 36 → "0", 71 → "Z".
        #expect(
            CodeGenerator.code(for: CodeFormat(length: 4, kind: .alphanumeric), using: &letters) == "ZZ0Z")
    }

    @Test("codes have the format's length and only its characters", arguments: [4, 6, 8])
    func shape(length: Int) {
        var generator = SeededGenerator(seed: UInt64(length))
        for _ in 0..<1000 {
            let code = CodeGenerator.code(for: CodeFormat(length: length), using: &generator)
            #expect(code.count == length)
            #expect(code.allSatisfy { $0.isASCII && $0.isNumber })
        }
    }

    @Test("identifiers carry a sortable time and 128 random bits in URL-safe base64, and do not repeat")
    func identifiers() {
        var generator = SystemRandomNumberGenerator()
        var seen = Set<String>()
        let time = Date(timeIntervalSince1970: 1_796_169_600)
        for _ in 0..<10_000 {
            // One instant for all: only the random part can tell them apart.
            let id = VerificationID.make(at: time, using: &generator)
            #expect(id.hasPrefix("vf_-P7o2Fk-"))
            #expect(id.count == 33)
            #expect(VerificationID.isWellFormed(id))
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        #expect(VerificationID.make(using: &generator).count == 25)
        #expect(VerificationID.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(VerificationID.base64URL(Array("hello".utf8)) == "aGVsbG8")
        // RFC 4648's vectors, padding left out.
        for (text, encoded) in [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy"),
        ] {
            #expect(VerificationID.base64URL(Array(text.utf8)) == encoded, "\(text)")
        }
        // A whole identifier from known words: the time part, then the 16 bytes the words give
        // lowest byte first (00 01 … 0F).
        var scripted = ScriptedGenerator([0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908])
        #expect(VerificationID.make(at: time, using: &scripted) == "vf_-P7o2Fk-AAECAwQFBgcICQoLDA0ODw")
    }

    @Test("the time part is milliseconds since 1970 in six-bit characters in byte order, clamped to 48 bits")
    func sortableTime() {
        let cases: [(Double, String)] = [
            (0, "--------"), (0.001, "-------0"), (0.063, "-------z"), (0.064, "------0-"),
            (1.234, "------IH"), (1_796_169_600, "-P7o2Fk-"), (-5, "--------"),
            (Double(1 << 48) / 1000 + 10, "zzzzzzzz"), (.infinity, "zzzzzzzz"), (.nan, "--------"),
        ]
        for (seconds, expected) in cases {
            let time = Date(timeIntervalSince1970: seconds)
            #expect(VerificationID.sortableTime(time) == expected, "\(seconds)")
        }
    }

    @Test("identifiers made later sort after earlier ones, byte by byte, whatever their random parts")
    func identifiersSortByTime() {
        var generator = SeededGenerator(seed: 11)
        var previous: [UInt8] = []
        var milliseconds: Int64 = 1_700_000_000_000
        for step in 0..<2_000 {
            // Steps of 1 ms, then longer ones, so every character of the time part changes.
            milliseconds += step < 1_000 ? 1 : Int64(step) << 24
            let time = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let id = Array(VerificationID.make(at: time, using: &generator).utf8)
            #expect(previous.lexicographicallyPrecedes(id), "\(step)")
            previous = id
        }
    }

    @Test("an owner's tag is found after identifiers with and without the time part, and nowhere else")
    func ownerTags() {
        var generator = SeededGenerator(seed: 5)
        let time = Date(timeIntervalSince1970: 1_796_169_600)
        let owned = VerificationID.make(at: time, using: &generator) { base in
            #expect(base.count == 33)
            return Array(repeating: 0xFF, count: 32)
        }
        #expect(owned.count == 42 && owned.hasSuffix("_________"))
        #expect(VerificationID.ownerTag(of: owned)?.base == String(owned.prefix(33)))
        #expect(VerificationID.ownerTag(of: owned)?.tag == "________")
        let older = VerificationID.make(using: &generator) + "_AAAAAAAA"
        #expect(VerificationID.ownerTag(of: older)?.base == String(older.prefix(25)))
        #expect(VerificationID.ownerTag(of: older)?.tag == "AAAAAAAA")
        // No tag, a tag at another place, another prefix, one character more or less.
        #expect(VerificationID.ownerTag(of: String(owned.prefix(33))) == nil)
        #expect(VerificationID.ownerTag(of: "vf_" + String(repeating: "A", count: 29) + "_AAAAAAAAA") == nil)
        #expect(VerificationID.ownerTag(of: "tf_" + owned.dropFirst(3)) == nil)
        #expect(VerificationID.ownerTag(of: owned + "A") == nil)
        #expect(VerificationID.ownerTag(of: String(owned.dropLast())) == nil)
    }

    @Test("malformed identifiers are refused before any store sees them")
    func malformedIdentifiers() {
        #expect(!VerificationID.isWellFormed(""))
        #expect(!VerificationID.isWellFormed("vf_a b"))
        #expect(!VerificationID.isWellFormed("vf_a:b"))
        #expect(!VerificationID.isWellFormed("vf_" + String(repeating: "a", count: 62)))
        #expect(!VerificationID.isWellFormed("vf_é"))
    }

    @Test("exactly the URL-safe base64 alphabet is allowed, character by character")
    func alphabet() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        for value in 0..<128 {
            let scalar = Unicode.Scalar(UInt8(value))
            #expect(
                VerificationID.isWellFormed("ab" + String(scalar)) == allowed.contains(scalar), "\(value)")
        }
    }
}
