import Foundation
import OTPCore
import OTPEngine
import Testing

/// A parser that knows a few numbers by their text and hint, as a number plan would read them.
struct TablePhoneParser: PhoneNumberParser {
    var numbers: [String: PhoneNumber]
    var grouping: [String: String] = [:]

    func parse(_ text: String, region: String?) -> PhoneNumber? {
        numbers[region.map { "\(text)|\($0)" } ?? text] ?? numbers[text]
    }

    func international(e164: String) -> String? { grouping[e164] }
}

@Suite struct PhoneScreeningTests {
    static let mobileDE = PhoneNumber(
        e164: "+4915123456789", isValid: true, region: "DE", type: .mobile, international: "+49 1512 3456789")
    static let usNumber = PhoneNumber(
        e164: "+12015550123", isValid: true, region: "US", type: .fixedLineOrMobile,
        international: "+1 201-555-0123")
    static let premium = PhoneNumber(e164: "+19002345678", isValid: true, region: "US", type: .premiumRate)
    static let landline = PhoneNumber(e164: "+442079460018", isValid: true, region: "GB", type: .fixedLine)
    static let impossible = PhoneNumber(e164: "+15555550100", isValid: false, region: nil, type: .unknown)
    static let caribbean = PhoneNumber(e164: "+12684641234", isValid: true, region: "AG", type: .mobile)
    static let french = PhoneNumber(e164: "+33612345678", isValid: true, region: "FR", type: .mobile)
    static let japanese = PhoneNumber(e164: "+819012345678", isValid: true, region: "JP", type: .mobile)
    static let saudi = PhoneNumber(e164: "+966501234567", isValid: true, region: "SA", type: .mobile)

    static let parser = TablePhoneParser(
        numbers: [
            "+4915123456789": mobileDE, "(201) 555-0123|US": usNumber, "+12015550123": usNumber,
            "+19002345678": premium, "+442079460018": landline, "+15555550100": impossible,
            "+12684641234": caribbean, "+33612345678": french, "+819012345678": japanese,
            "+966501234567": saudi,
        ],
        grouping: ["+12015550123": "+1 201-555-0123"])

    struct Setup {
        let verifier: Verifier
        let sender: RecordingSender
        let store: MemoryStore
    }

    func setup(_ change: (inout Policy) -> Void = { _ in }) -> Setup {
        let sender = RecordingSender()
        let store = MemoryStore()
        let clock = ManualClock()
        let verifier = Verifier(
            store: store, sender: sender, policy: relaxedPolicy(change), secret: testSecret,
            now: { clock.date },
            phoneNumbers: Self.parser)
        return Setup(verifier: verifier, sender: sender, store: store)
    }

    func start(
        _ setup: Setup, _ to: String, country: String? = nil, locale: TextLanguage? = nil
    ) async
        -> Result<StartResult, VerifierError>
    {
        do {
            return .success(
                try await setup.verifier.start(
                    StartRequest(to: to, clientAddress: "192.0.2.1", locale: locale, country: country)))
        } catch {
            return .failure(error)
        }
    }

    @Test("a number the plan says cannot exist is invalid_destination, and nothing is sent")
    func impossibleNumber() async throws {
        let s = setup()
        let answer = await start(s, "+15555550100")
        #expect(answer.failure == .invalidDestination)
        #expect(await s.sender.messages.isEmpty)
    }

    @Test("text the parser cannot read at all is invalid_destination")
    func unreadable() async throws {
        let s = setup()
        #expect(await start(s, "+1 nothing").failure == .invalidDestination)
        #expect(await start(s, "").failure == .invalidDestination)
        #expect(await s.sender.messages.isEmpty)
    }

    @Test("a national number with a country hint is read in that region and kept in E.164")
    func nationalWithHint() async throws {
        let s = setup()
        let started = try await start(s, "(201) 555-0123", country: "US").get()
        #expect(await s.sender.messages.first?.to == "+12015550123")
        // The masked form keeps the plan's international grouping.
        #expect(started.verification.to == "+1 •••-•••-0123")
        // Without the hint the same text is no number.
        #expect(await start(s, "(201) 555-0123").failure == .invalidDestination)
    }

    @Test("a region outside --allowed-regions is refused for its region, and nothing is sent")
    func regionRefused() async throws {
        let s = setup { $0.allowedRegions = ["US", "CA", "GB"] }
        let answer = await start(s, "+4915123456789")
        #expect(answer.failure == .destinationNotAllowed(.region))
        #expect(answer.failure?.refusal == .region)
        #expect(await s.sender.messages.isEmpty)
        // Calling code 1 is not region US: the Caribbean shares it.
        #expect(await start(s, "+12684641234").failure?.refusal == .region)
        #expect(await start(s, "+12015550123").failure == nil)
    }

    @Test("with a parser that cannot tell regions, an allow list refuses every number")
    func unknownRegionRefused() async throws {
        let sender = RecordingSender()
        var policy = relaxedPolicy()
        policy.allowedRegions = ["US"]
        let verifier = Verifier(store: MemoryStore(), sender: sender, policy: policy, secret: testSecret)
        let error = await verifierError { () async throws(VerifierError) in
            try await verifier.start(StartRequest(to: "+12015550123", clientAddress: "192.0.2.1"))
        }
        #expect(error?.refusal == .region)
    }

    @Test("the calling-code list and the region list must both pass")
    func callingCodesAndRegions() async throws {
        let s = setup {
            $0.allowedRegions = ["US", "DE"]
            $0.allowedCallingCodes = ["1"]
        }
        #expect(await start(s, "+4915123456789").failure == .callingCodeNotAllowed)
        #expect(await start(s, "+12684641234").failure?.refusal == .region)
        #expect(await start(s, "+12015550123").failure == nil)
    }

    @Test("by default premium-rate numbers and landlines are refused for their type; mobiles pass")
    func defaultTypes() async throws {
        let s = setup()
        #expect(await start(s, "+19002345678").failure == .destinationNotAllowed(.numberType))
        #expect(await start(s, "+442079460018").failure?.refusal == .numberType)
        #expect(await s.sender.messages.isEmpty)
        #expect(await start(s, "+4915123456789").failure == nil)
        #expect(await start(s, "+12015550123").failure == nil)
    }

    @Test("the order: an impossible number first, then the channel and calling code, then region and type")
    func order() async throws {
        let emailOnly = setup {
            $0.channels = [.email]
            $0.allowedRegions = ["DE"]
        }
        #expect(await start(emailOnly, "+15555550100").failure == .invalidDestination)
        #expect(await start(emailOnly, "+19002345678").failure == .channelNotSupported(.sms))
        let codes = setup {
            $0.allowedCallingCodes = ["49"]
            $0.allowedRegions = ["DE"]
        }
        #expect(await start(codes, "+15555550100").failure == .invalidDestination)
        #expect(await start(codes, "+19002345678").failure == .callingCodeNotAllowed)
        #expect(await start(codes, "+4915123456789").failure == nil)
    }

    @Test("the operator's number types replace the default")
    func chosenTypes() async throws {
        let s = setup { $0.smsNumberTypes = [.mobile, .fixedLine] }
        #expect(await start(s, "+442079460018").failure == nil)
        #expect(await start(s, "+12015550123").failure?.refusal == .numberType)
    }

    @Test("a test destination is exempt from the validity, region and type screens")
    func testDestinationsExempt() async throws {
        let s = setup {
            $0.allowedRegions = ["DE"]
            $0.testDestinations = ["+15555550100": "123456", "+19002345678": "654321"]
        }
        #expect(await start(s, "+15555550100").failure == nil)
        #expect(await start(s, "+19002345678").failure == nil)
        // Nothing is ever sent to a test destination.
        #expect(await s.sender.messages.isEmpty)
    }

    @Test("a start without a locale speaks its number's region's language; a locale given wins")
    func languageByRegion() async throws {
        let s = setup()
        let expected: [(String, TextLanguage)] = [
            ("+4915123456789", .german), ("+819012345678", .japanese), ("+966501234567", .arabic),
            ("+33612345678", .english), ("+12015550123", .english),
        ]
        for (number, language) in expected {
            let started = try await start(s, number).get()
            let record = try #require(await s.store.record(id: started.verification.id))
            #expect(record.locale == language.rawValue, "\(number)")
        }
        let chosen = try await start(s, "+4915123456789", locale: .japanese).get()
        #expect(try #require(await s.store.record(id: chosen.verification.id)).locale == "ja")
        // The German message is not the English one.
        let messages = await s.sender.messages
        #expect(
            messages[0].text.hasPrefix("Dein") || messages[0].text.hasPrefix("Ihr"), "\(messages[0].text)")
        #expect(messages[4].text.hasPrefix("Your"))
    }

    @Test("a region without a catalog takes the policy's default language")
    func defaultLanguage() async throws {
        let s = setup { $0.defaultLocale = .german }
        let started = try await start(s, "+33612345678").get()
        #expect(try #require(await s.store.record(id: started.verification.id)).locale == "de")
    }

    @Test("the E.164 syntax parser reads international numbers only, valid and of no known region or type")
    func syntaxParser() {
        let parser = E164SyntaxParser()
        #expect(
            parser.parse("+1 (555) 555-0100", region: "GB")
                == PhoneNumber(e164: "+15555550100", isValid: true))
        #expect(parser.parse("5555550100", region: "US") == nil)
        #expect(parser.parse("ana@example.org", region: nil) == nil)
        #expect(parser.international(e164: "+15555550100") == nil)
        #expect(parser.masked(e164: "+15555550100") == "+1 ••• ••• 0100")
    }

    @Test("a start's answer masks its number as every later answer does, whatever the parser's reading says")
    func startMaskMatchesLaterMasks() async throws {
        // A parser whose reading and whose grouping by E.164 disagree: the later answers' grouping wins.
        let test = PhoneNumber(e164: "+15550100", isValid: false, international: "+1 555-0100")
        let parser = TablePhoneParser(
            numbers: ["+15550100": test, "+4915123456789": Self.mobileDE],
            grouping: ["+15550100": "+1 555 0100", "+4915123456789": "+49 15 123456789"])
        let masking = DestinationMasking(phoneNumbers: parser)
        for number in [test, Self.mobileDE] {
            #expect(masking.masked(number) == masking.mask(channel: .sms, address: number.e164))
        }
        #expect(masking.masked(Self.mobileDE) == "+49 •• •••••6789")
        // The syntax parser's mask is the plain one either way.
        let syntax = DestinationMasking(phoneNumbers: E164SyntaxParser())
        let plain = PhoneNumber(e164: "+15555550100", isValid: true)
        #expect(syntax.masked(plain) == syntax.mask(channel: .sms, address: plain.e164))
    }

    @Test(
        "a grouped mask hides the national digits but the last four; a grouping of other digits is not used")
    func groupedMask() {
        #expect(Destination.maskGrouped("+44 7400 123456", e164: "+447400123456") == "+44 •••• ••3456")
        #expect(Destination.maskGrouped("+1 201-555-0123", e164: "+12015550123") == "+1 •••-•••-0123")
        // Other digits, a digit short, a digit more: each is no grouping of the number.
        for grouped in ["+1 201-555-0999", "+1 201-555-012", "+1 201-555-01234"] {
            #expect(
                Destination.maskGrouped(grouped, e164: "+12015550123")
                    == Destination.mask(channel: .sms, address: "+12015550123"), "\(grouped)")
        }
    }

    @Test("the regions' languages: German for DE, AT and CH, Arabic for the Arab League, Japanese for JP")
    func regionLanguages() {
        #expect(RegionLanguages.language(ofRegion: "DE") == .german)
        #expect(RegionLanguages.language(ofRegion: "at") == .german)
        #expect(RegionLanguages.language(ofRegion: "CH") == .german)
        #expect(RegionLanguages.language(ofRegion: "JP") == .japanese)
        #expect(RegionLanguages.regions[.arabic]?.count == 22)
        for region in ["SA", "EG", "AE", "MA", "IQ"] {
            #expect(RegionLanguages.language(ofRegion: region) == .arabic)
        }
        #expect(RegionLanguages.language(ofRegion: "FR") == nil)
        #expect(RegionLanguages.language(ofRegion: nil) == nil)
    }

    @Test("a destination refusal keeps its reason, and says it in its description")
    func refusalError() {
        let error = VerifierError.destinationNotAllowed(.numberType)
        #expect(error.kind == .destinationNotAllowed)
        #expect(error.reason == "number_type")
        #expect(error.refusal == .numberType)
        #expect(error.channel == .sms)
        #expect(error.description == "destinationNotAllowed channel=sms refusal=number_type")
        #expect(VerifierError.startRefused(reason: "region").refusal == nil)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
