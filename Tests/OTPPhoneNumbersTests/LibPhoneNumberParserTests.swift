import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPPhoneNumbers

@Suite struct LibPhoneNumberParserTests {
    let parser = LibPhoneNumberParser()

    @Test("libphonenumber knows the regions of the world, sorted, as ISO 3166 alpha-2 codes")
    func supportedRegions() {
        let regions = LibPhoneNumberParser.supportedRegions
        #expect(regions.count > 200)
        #expect(regions == regions.sorted())
        #expect(regions.allSatisfy { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isUppercase } })
        for region in ["US", "CA", "GB", "DE", "JP", "SA", "AG"] {
            #expect(LibPhoneNumberParser.isSupported(region: region))
        }
        #expect(!LibPhoneNumberParser.isSupported(region: "XX"))
        #expect(!LibPhoneNumberParser.isSupported(region: "us"))
    }

    @Test("every example number of libphonenumber's metadata parses back to its region, type and E.164 form")
    func exampleNumbersRoundTrip() {
        var checked = 0
        for region in LibPhoneNumberParser.supportedRegions {
            // The metadata has examples per type; fixed_line_or_mobile is what a fixed-line or mobile
            // example reads as where the two share ranges, never a type of its own there.
            for type in PhoneNumberType.allCases where type != .unknown && type != .fixedLineOrMobile {
                guard let example = parser.example(region: region, type: type) else { continue }
                #expect(example.isValid, "\(region) \(type)")
                // International form, no hint.
                let international = parser.parse(example.e164, region: nil)
                #expect(international?.e164 == example.e164, "\(region) \(type)")
                #expect(international?.isValid == true, "\(region) \(type)")
                #expect(international?.type == example.type, "\(region) \(type)")
                // Several regions share a calling code and a range: the region is one of the code's.
                #expect(international?.region != nil, "\(region) \(type)")
                // The grouped international form reads back to the same number.
                if let grouped = example.international {
                    #expect(parser.parse(grouped, region: nil)?.e164 == example.e164, "\(region) \(type)")
                }
                // The type asked for, or the one the plan cannot tell from it.
                let types: Set<PhoneNumberType> =
                    type == .fixedLine || type == .mobile ? [type, .fixedLineOrMobile] : [type]
                #expect(
                    example.type.map(types.contains) == true,
                    "\(region) \(type): \(String(describing: example.type))")
                checked += 1
            }
        }
        #expect(checked > 1000)
    }

    @Test("an example number written nationally with its region's hint parses to the same E.164 number")
    func nationalWithHint() throws {
        for region in ["US", "GB", "DE", "FR", "JP", "IN", "BR", "AU", "SA", "ZA"] {
            let example = try #require(parser.example(region: region, type: .mobile))
            let digits = example.e164.dropFirst(1 + String(try #require(callingCode(example))).count)
            let national = parser.parse(String(digits), region: region)
            #expect(national?.e164 == example.e164, "\(region)")
            #expect(national?.region == region, "\(region)")
        }
    }

    private func callingCode(_ number: PhoneNumber) -> Int? {
        // "+CC rest": the digits before the first separator of the grouped form.
        guard let grouped = number.international else { return nil }
        return Int(grouped.dropFirst().prefix { $0.isNumber })
    }

    @Test(
        "known answers: a US number from the 555-01xx range, a UK mobile, a German mobile, a Japanese mobile")
    func knownAnswers() {
        let us = parser.parse("(201) 555-0123", region: "US")
        #expect(
            us
                == PhoneNumber(
                    e164: "+12015550123", isValid: true, region: "US", type: .fixedLineOrMobile,
                    international: "+1 201-555-0123"))
        let gb = parser.parse("+44 7400 123456", region: nil)
        #expect(gb?.e164 == "+447400123456")
        #expect(gb?.region == "GB")
        #expect(gb?.type == .mobile)
        #expect(gb?.international == "+44 7400 123456")
        let de = parser.parse("0151 23456789", region: "de")
        #expect(de?.e164 == "+4915123456789")
        #expect(de?.region == "DE")
        #expect(de?.type == .mobile)
        let jp = parser.parse("+81 90-1234-5678", region: nil)
        #expect(jp?.region == "JP")
        #expect(jp?.type == .mobile)
    }

    @Test("types that must not take SMS are told apart: toll free, premium rate, a landline")
    func refusedTypes() {
        #expect(parser.parse("+1 800 234 5678", region: nil)?.type == .tollFree)
        #expect(parser.parse("+1 900 234 5678", region: nil)?.type == .premiumRate)
        #expect(parser.parse("+44 20 7946 0018", region: nil)?.type == .fixedLine)
        #expect(parser.parse("+44 909 876 5432", region: nil)?.type == .premiumRate)
    }

    @Test("the region comes from the number, not from the hint, when the number is international")
    func hintDoesNotOverride() {
        let number = parser.parse("+44 7400 123456", region: "US")
        #expect(number?.region == "GB")
        #expect(number?.e164 == "+447400123456")
    }

    @Test(
        "text that is no phone number is nil",
        arguments: [
            "", "   ", "+", "abc", "+1 201 555 O123", "+1-800-FLOWERS", "call +12015550123",
            "+12015550123 x12",
            "+12015550123;ext=5", "2015550123", "+1 201 555 0123 ☎", String(repeating: "1", count: 65),
        ])
    func notANumber(_ text: String) {
        #expect(parser.parse(text, region: nil) == nil)
    }

    @Test(
        "a national number with a hint that is no region is nil",
        arguments: ["", "U", "USA", "1", "u$", "XX"])
    func badHint(_ hint: String) {
        #expect(parser.parse("2015550123", region: hint) == nil)
    }

    @Test(
        "numbers that read but cannot exist are not valid: too short, too long, outside the region's plan",
        arguments: [
            ("+1201555012", nil), ("+120155501234", nil), ("+15550100", nil), ("+1 555 555 0100", nil),
            ("+44 7400 12345", nil), ("+49 0151 2345", nil), ("201555012", "US"), ("+999 1234 5678", nil),
        ] as [(String, String?)])
    func notValid(_ text: String, hint: String?) {
        let number = parser.parse(text, region: hint)
        #expect(number?.isValid != true, "\(text)")
        if let number { #expect(number.type == .unknown) }
    }

    @Test(
        "a wrong hint reads a national number in the wrong plan: the region is the hint's, or the number is not valid"
    )
    func wrongHint() {
        // A UK mobile's national digits read in the United States are no valid US number.
        let number = parser.parse("07400 123456", region: "US")
        #expect(number?.isValid != true)
        #expect(number?.region != "GB")
    }

    @Test("masking keeps libphonenumber's grouping, the calling code and the last four digits")
    func masking() {
        #expect(parser.masked(e164: "+12015550123") == "+1 •••-•••-0123")
        // Asked again, the remembered grouping gives the same answer.
        #expect(parser.masked(e164: "+12015550123") == "+1 •••-•••-0123")
        #expect(parser.masked(e164: "+447400123456") == "+44 •••• ••3456")
        // A number libphonenumber cannot read keeps the ungrouped mask.
        #expect(parser.masked(e164: "+15550100") == Destination.mask(channel: .sms, address: "+15550100"))
    }

    @Test("a start's mask, made from the number it read, is the mask a later answer finds from E.164 alone")
    func maskFromReading() {
        // Two parsers, so the later answer's grouping is not the one the reading remembered.
        let reading = DestinationMasking(phoneNumbers: LibPhoneNumberParser())
        let later = DestinationMasking(phoneNumbers: LibPhoneNumberParser())
        var texts: [(String, String?)] = [
            ("+15550100", nil), ("+1 555 555 0100", nil), ("(201) 555-0123", "US"), ("07400 123456", "GB"),
            ("+882 34 5678 9012", nil),
        ]
        for region in ["US", "GB", "DE", "JP", "BR", "IN", "FR", "NG"] {
            for type in [PhoneNumberType.mobile, .fixedLine, .tollFree] {
                guard let example = parser.example(region: region, type: type) else { continue }
                texts.append((example.e164, nil))
                if let grouped = example.international { texts.append((grouped, region)) }
            }
        }
        var compared = 0
        for (text, region) in texts {
            guard let number = LibPhoneNumberParser().parse(text, region: region) else { continue }
            #expect(reading.masked(number) == later.mask(channel: .sms, address: number.e164), "\(text)")
            compared += 1
        }
        #expect(compared > 20)
        // Without a parser's grouping, the plain mask either way.
        let number = PhoneNumber(e164: "+12015550123", isValid: true, international: "+1 201-555-0123")
        #expect(
            DestinationMasking.plain.masked(number)
                == Destination.mask(channel: .sms, address: "+12015550123"))
    }
}

/// The default reading (libphonenumber's metadata through matchers kept per thread) against
/// `PhoneNumberUtil`'s own Parse, GetRegionCodeForNumber and GetNumberType.
@Suite struct NumberPlanReadingTests {
    let reading = LibPhoneNumberParser()
    let reference = LibPhoneNumberParser(readingThroughReference: true)

    @Test("libphonenumber's metadata is read, so the faster reading runs")
    func metadataRead() {
        #expect(LibPhoneNumberParser.readsThroughNumberPlan)
    }

    /// Every region's example numbers and variants of each, read both ways.
    ///
    /// The variants come from a seeded generator: digits changed, one digit more or less, a
    /// leading zero, another first digit. Both readings must
    /// agree on whether the text is a number, and on its E.164 form, validity, region, type and
    /// grouping.
    @Test("the faster reading answers as PhoneNumberUtil on example numbers and their variants")
    func agreesWithReference() {
        var generator = SeededGenerator(seed: 0x5EED)
        var texts: [String] = []
        for region in LibPhoneNumberParser.supportedRegions {
            for type in PhoneNumberType.allCases where type != .unknown {
                guard let example = reference.example(region: region, type: type) else { continue }
                texts.append(example.e164)
                texts += variants(of: example.e164, using: &generator)
                if let international = example.international { texts.append(international) }
            }
        }
        var compared = 0
        var valid = 0
        for text in texts {
            let fast = reading.parse(text, region: nil)
            let slow = reference.parse(text, region: nil)
            #expect(fast == slow, "\(text)")
            compared += 1
            if slow?.isValid == true { valid += 1 }
        }
        // Enough of both kinds for the comparison to mean something.
        #expect(compared > 15_000)
        #expect(valid > 3_000)
        #expect(compared - valid > 3_000)
    }

    @Test("national input with a region hint, and texts Parse refuses, agree too")
    func nationalAndRefused() {
        let cases: [(String, String?)] = [
            ("(201) 555-0123", "US"), ("07400 123456", "GB"), ("030 123456", "DE"), ("+44 07400 123456", nil),
            ("+4407400123456", nil), ("+78005553535", nil), ("+7 8 800 555 35 35", nil), ("+0123456", nil),
            ("+999123456789", nil), ("+1", nil), ("+12", nil), ("+123", nil), ("+1234", nil),
            ("+5491123456789", nil), ("+54 11 2345 6789", nil), ("+5215512345678", nil),
            ("+390612345678", nil),
            ("+39000", nil), ("+800 1234 5678", nil), ("+882 3456 7890", nil),
            ("+123456789012345678901", nil),
        ]
        for (text, region) in cases {
            #expect(reading.parse(text, region: region) == reference.parse(text, region: region), "\(text)")
        }
    }

    private func variants(of e164: String, using generator: inout SeededGenerator) -> [String] {
        let digits = Array(e164.dropFirst())
        var out: [String] = []
        for round in 0..<12 {
            var next = digits
            switch round % 6 {
            case 0:
                for index in (digits.count / 2)..<digits.count { next[index] = generator.digit() }
            case 1: next[Int(generator.next() % UInt64(digits.count))] = generator.digit()
            case 2: next.append(generator.digit())
            case 3: if next.count > 4 { next.removeLast() }
            case 4: next.insert("0", at: min(next.count, 1 + Int(generator.next() % 3)))
            default:
                for index in 1..<digits.count where generator.next() % 2 == 0 {
                    next[index] = generator.digit()
                }
            }
            out.append("+" + String(next))
        }
        return out
    }
}

extension SeededGenerator {
    /// A decimal digit.
    fileprivate mutating func digit() -> Character { Character(String(next() % 10)) }
}
