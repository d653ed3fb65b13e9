import Foundation
import OTPCore
import OTPEngine
import Testing

/// The SMS pumping guard as the engine runs it: the prefix rule, the block rule, blocks, shadow mode,
/// the safe list and the insights.
@Suite struct FraudGuardTests {
    /// A verifier on a manual clock whose guard runs in `mode`, with its decisions kept.
    struct GuardHarness {
        let clock = ManualClock()
        let sender = RecordingSender()
        let decisions = TestLocked<[FraudDecision]>([])
        let verifier: Verifier

        init(
            mode: FraudGuardPolicy.Mode = .on, safeList: [String] = [],
            store: any VerificationStore = MemoryStore(),
            phoneNumbers: any PhoneNumberParser = E164SyntaxParser(),
            change: (inout Policy) -> Void = { _ in }
        ) {
            let policy = relaxedPolicy { policy in
                policy.fraudGuard = FraudGuardPolicy(mode: mode, minSends: 20, safeList: safeList)
                policy.testDestinations = ["+15555550199": "123456"]
                change(&policy)
            }
            let decisions = self.decisions
            verifier = Verifier(
                store: store, sender: sender, policy: policy, secret: testSecret,
                now: { [clock] in clock.date }, phoneNumbers: phoneNumbers,
                fraudDecisions: { decision in decisions.withLock { $0.append(decision) } })
        }

        /// Starts to `number` and answers with the code typed when `approve`.
        @discardableResult
        func start(_ number: String, approve: Bool = false) async throws -> Verification {
            let started = try await verifier.start(StartRequest(to: number, clientAddress: "192.0.2.7"))
            if approve {
                let code = try #require(await sender.lastCode(for: started.verification.id))
                _ = try await verifier.check(
                    id: started.verification.id, code: code, clientAddress: "192.0.2.7")
            }
            return started.verification
        }

        /// A baseline for region +44: 20 starts to +447700, 16 of them approved (80%).
        func baseline() async throws {
            for index in 0..<20 {
                try await start("+4477009000\(String(format: "%02d", index))", approve: index < 16)
            }
        }

        /// `count` starts to the prefix +447911, none approved.
        func pump(_ count: Int, from first: Int = 0) async throws {
            for index in first..<(first + count) {
                try await start("+4479111000\(String(format: "%02d", index))")
            }
        }

        var blocks: [FraudDecision] { decisions.withLock { $0.filter { $0.action == .block } } }
    }

    @Test(
        "the prefix is the calling code and national digits − 6 (2 to 4) of them; the region the calling code"
    )
    func prefixRule() {
        let cases: [(String, String, String)] = [
            ("+14155550123", "+14155", "+1"), ("+447911123456", "+447911", "+44"),
            ("+33612345678", "+33612", "+33"), ("+37061234567", "+37061", "+370"),
            ("+4915112345678", "+491511", "+49"), ("+3541234567", "+35412", "+354"),
        ]
        for (number, prefix, region) in cases {
            let subject = FraudSubject(e164: number)
            #expect(subject.prefix == prefix, "\(number)")
            #expect(subject.region == region, "\(number)")
            #expect(subject.channel == .sms)
        }
        #expect(FraudSubject(e164: "+447911123456", region: "GB").region == "GB")
    }

    @Test(
        "a prefix is judged from min-sends on, against a quarter of its region's other prefixes, or 5% without them"
    )
    func rule() {
        let rule = FraudRule(minSends: 20)
        let region = FraudCount(key: "r", sends: 120, approvals: 73)
        // The other prefixes: 100 sends, 70 approved: a 70% baseline, a 17.5% threshold.
        let under = rule.judgePrefix(FraudCount(key: "p", sends: 20, approvals: 3), region: region)
        #expect(under.blocks)
        #expect(under.baseline == 0.7)
        #expect(under.threshold == 0.175)
        let over = rule.judgePrefix(
            FraudCount(key: "p", sends: 20, approvals: 4),
            region: FraudCount(key: "r", sends: 120, approvals: 74))
        #expect(!over.blocks)
        let few = rule.judgePrefix(
            FraudCount(key: "p", sends: 19, approvals: 0),
            region: FraudCount(key: "r", sends: 119, approvals: 70))
        #expect(!few.blocks)
        // Other prefixes under min-sends: no baseline, 5%.
        let alone = rule.judgePrefix(
            FraudCount(key: "p", sends: 20, approvals: 0),
            region: FraudCount(key: "r", sends: 39, approvals: 19))
        #expect(alone.baseline == nil)
        #expect(alone.threshold == 0.05)
        #expect(alone.blocks)
        let atFloor = rule.judgePrefix(
            FraudCount(key: "p", sends: 20, approvals: 1),
            region: FraudCount(key: "r", sends: 20, approvals: 1))
        #expect(!atFloor.blocks)
        // Other prefixes with sends but no approval: no baseline either (a 0% baseline would make
        // a threshold no conversion falls under), so 5%.
        let unconverted = rule.judgePrefix(
            FraudCount(key: "p", sends: 20, approvals: 0),
            region: FraudCount(key: "r", sends: 58, approvals: 0))
        #expect(unconverted.baseline == nil)
        #expect(unconverted.threshold == 0.05)
        #expect(unconverted.blocks)
        #expect(
            rule.judgeRegion(
                FraudCount(key: "r", sends: 200, approvals: 0),
                all: FraudCount(key: "a", sends: 600, approvals: 0)
            ).blocks)
        // One approval among the others is a baseline again.
        let thin = rule.judgePrefix(
            FraudCount(key: "p", sends: 20, approvals: 0),
            region: FraudCount(key: "r", sends: 58, approvals: 1))
        #expect(thin.baseline == 1.0 / 38.0)
        #expect(thin.blocks)
        // A region: ten times min-sends, against every other region together.
        let regionRule = rule.judgeRegion(
            FraudCount(key: "r", sends: 200, approvals: 20),
            all: FraudCount(key: "a", sends: 400, approvals: 160))
        #expect(regionRule.blocks)
        #expect(regionRule.baseline == 0.7)
        #expect(
            !rule.judgeRegion(
                FraudCount(key: "r", sends: 199, approvals: 0),
                all: FraudCount(key: "a", sends: 400, approvals: 140)
            ).blocks)
    }

    @Test("an attack cycling over three prefixes of a quiet region blocks each prefix at its min-sends")
    func cycledPrefixesOfAQuietRegion() async throws {
        let h = GuardHarness()
        // No real traffic in +44: each prefix's baseline is the others' sends, none approved.
        for round in 0..<20 {
            for prefix in ["+4479111", "+4479222", "+4479333"] {
                try await h.start(prefix + "00" + String(format: "%03d", round))
            }
        }
        let blocked = Set(h.blocks.map(\.subject.prefix))
        #expect(blocked == ["+447911", "+447922", "+447933"])
        #expect(h.blocks.allSatisfy { $0.judgement?.baseline == nil && $0.judgement?.threshold == 0.05 })
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "+447922200099", clientAddress: "192.0.2.7"))
        }
        #expect(error?.kind == .destinationBlocked)
    }

    @Test(
        "a prefix clears its region's block when, over the day, it has approvals and converts at the region's threshold"
    )
    func clearing() {
        let rule = FraudRule(minSends: 20)
        // The other regions: 1000 sends, 700 approved: a 70% baseline, a 17.5% threshold.
        let region = FraudCount(key: "r", sends: 300, approvals: 40)
        let all = FraudCount(key: "a", sends: 1300, approvals: 740)
        let clears = { (sends: Int, approvals: Int) in
            rule.clearsRegionBlock(
                prefix: FraudCount(key: "p", sends: sends, approvals: approvals), region: region, all: all)
        }
        #expect(clears(30, 20))
        #expect(clears(40, 7))  // 17.5%: at the threshold
        #expect(!clears(40, 6))  // 15%
        #expect(!clears(1, 0))  // a range of the attack: sends, never an approval
        #expect(!clears(0, 0))  // a range never seen
        // The other regions under ten times min-sends: no baseline, 5%, and an approval is needed.
        let few = FraudCount(key: "a", sends: 499, approvals: 300)
        #expect(
            rule.clearsRegionBlock(
                prefix: FraudCount(key: "p", sends: 20, approvals: 1), region: region, all: few))
        #expect(
            !rule.clearsRegionBlock(
                prefix: FraudCount(key: "p", sends: 21, approvals: 1), region: region, all: few))
        // Other regions converting nothing: a threshold of 0, and still no clearing without an approval.
        let dead = FraudCount(key: "a", sends: 700, approvals: 40)
        #expect(
            !rule.clearsRegionBlock(
                prefix: FraudCount(key: "p", sends: 5, approvals: 0), region: region, all: dead))
        #expect(
            rule.clearsRegionBlock(
                prefix: FraudCount(key: "p", sends: 5, approvals: 1), region: region, all: dead))
    }

    @Test(
        "a pumped prefix is blocked at min-sends: the next start is 429 pumping, retry after 12 h, and sends nothing"
    )
    func blocks() async throws {
        let h = GuardHarness()
        try await h.baseline()
        try await h.pump(20)
        #expect(h.blocks.count == 1)
        let block = try #require(h.blocks.first)
        #expect(block.level == .prefix)
        #expect(block.subject.prefix == "+447911")
        #expect(block.judgement?.sends == 20)
        #expect(block.judgement?.approvals == 0)
        #expect(block.judgement?.baseline == 0.8)
        #expect(block.block.repeats == 1)
        let sent = await h.sender.messages.count
        h.clock.advance(by: .seconds(60))
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "+447911100099", clientAddress: "192.0.2.7"))
        }
        #expect(error?.kind == .destinationBlocked)
        #expect(error?.reason == "pumping")
        #expect(error?.retryAfter == .seconds(12 * 3600 - 60))
        #expect(await h.sender.messages.count == sent)
        #expect(h.decisions.withLock { $0.last?.action } == .refuse)
        // Other prefixes of the region still send.
        _ = try await h.start("+447700900099")
    }

    @Test("a resend to a blocked prefix is refused too, and sends nothing; in shadow mode it is sent")
    func resend() async throws {
        for mode in [FraudGuardPolicy.Mode.on, .shadow] {
            let h = GuardHarness(mode: mode)
            try await h.baseline()
            let first = try await h.start("+447911100000")
            try await h.pump(19, from: 1)
            #expect(h.blocks.count == 1)
            h.clock.advance(by: .seconds(60))
            let sent = await h.sender.messages.count
            let error = await verifierError { () async throws(VerifierError) in
                try await h.verifier.resend(id: first.id, clientAddress: "192.0.2.7")
            }
            if mode == .on {
                #expect(error?.kind == .destinationBlocked)
                #expect(error?.retryAfter == .seconds(12 * 3600 - 60))
                #expect(await h.sender.messages.count == sent)
            } else {
                #expect(error == nil)
                #expect(await h.sender.messages.count == sent + 1)
            }
        }
    }

    @Test(
        "servers sharing a store share the counts: sends through one block the prefix for the other",
        arguments: StoreKind.allCases)
    func shared(kind: StoreKind) async throws {
        let stores = try await kind.makeStores(count: 2)
        let one = GuardHarness(store: stores[0])
        let other = GuardHarness(store: stores[1])
        for index in 0..<20 {
            try await (index % 2 == 0 ? one : other).start(
                "+4477009000\(String(format: "%02d", index))", approve: index < 16)
        }
        for index in 0..<20 {
            try await (index % 2 == 0 ? one : other).start("+4479111000\(String(format: "%02d", index))")
        }
        #expect(one.blocks.count + other.blocks.count == 1)
        let error = await verifierError { () async throws(VerifierError) in
            try await other.verifier.start(StartRequest(to: "+447911100099", clientAddress: "192.0.2.7"))
        }
        #expect(error?.kind == .destinationBlocked)
        let insights = try await one.verifier.conversionInsights(
            since: one.clock.date.addingTimeInterval(-60))
        #expect(insights.regions.first?.sends == 40)
        #expect(insights.regions.first?.approvals == 16)
    }

    @Test("a block ends after its length; the next block of the prefix lasts twice as long")
    func repeats() async throws {
        let h = GuardHarness()
        try await h.baseline()
        try await h.pump(20)
        h.clock.advance(by: .seconds(12 * 3600))
        // The window has moved on: the prefix starts again from nothing, with a fresh baseline.
        try await h.baseline()
        try await h.pump(19, from: 20)
        #expect(h.blocks.count == 1)
        try await h.pump(1, from: 39)
        #expect(h.blocks.count == 2)
        #expect(h.blocks.last?.block.repeats == 2)
        #expect(h.blocks.last?.block.until == h.clock.date.addingTimeInterval(24 * 3600))
    }

    @Test(
        "shadow mode decides the same block but refuses nothing and counts the starts it would refuse as on would"
    )
    func shadow() async throws {
        let h = GuardHarness(mode: .shadow)
        try await h.baseline()
        try await h.pump(20)
        #expect(h.blocks.count == 1)
        #expect(h.blocks.first?.mode == .shadow)
        let sent = await h.sender.messages.count
        try await h.pump(30, from: 20)
        #expect(await h.sender.messages.count == sent + 30)
        #expect(h.decisions.withLock { $0.filter { $0.action == .refuse }.count } == 30)
        // Those 30 sends were not counted: the prefix has the 20 that on would have let through.
        let insights = try await h.verifier.conversionInsights(since: h.clock.date.addingTimeInterval(-3600))
        #expect(insights.prefixes.first { $0.prefix == "+447911" }?.sends == 20)
    }

    @Test("safe-listed numbers pass a block, and a safe-listed prefix is never blocked")
    func safeList() async throws {
        let h = GuardHarness(safeList: ["+447911100050"])
        try await h.baseline()
        try await h.pump(20)
        _ = try await h.start("+447911100050")
        let safePrefix = GuardHarness(safeList: ["+4479"])
        try await safePrefix.baseline()
        try await safePrefix.pump(40)
        #expect(safePrefix.blocks.isEmpty)
    }

    @Test("off, email and test destinations are not counted; approvals are, and the insights show them")
    func counting() async throws {
        let off = GuardHarness(mode: .off)
        try await off.pump(25)
        #expect(off.blocks.isEmpty)
        #expect(
            try await off.verifier.conversionInsights(since: off.clock.date.addingTimeInterval(-60)).regions
                .isEmpty)
        let h = GuardHarness()
        _ = try await h.verifier.start(StartRequest(to: "ana@example.org", clientAddress: "192.0.2.7"))
        _ = try await h.verifier.start(StartRequest(to: "+15555550199", clientAddress: "192.0.2.7"))
        try await h.start("+447700900001", approve: true)
        try await h.start("+447700900002")
        let insights = try await h.verifier.conversionInsights(since: h.clock.date.addingTimeInterval(-60))
        #expect(
            insights.regions == [
                ConversionInsights.Row(region: "+44", prefix: nil, channel: .sms, sends: 2, approvals: 1)
            ])
        #expect(
            insights.prefixes == [
                ConversionInsights.Row(
                    region: "+44", prefix: "+447700", channel: .sms, sends: 2, approvals: 1)
            ])
        #expect(insights.prefixes.first?.conversion == 0.5)
    }

    @Test("a region whose conversion collapses across all its prefixes is blocked as a whole")
    func region() async throws {
        let h = GuardHarness()
        // Other regions: 200 sends at 70%.
        for index in 0..<200 {
            try await h.start("+1415555\(String(format: "%04d", index))", approve: index % 10 < 7)
        }
        // +33: 200 starts spread over 100 prefixes, none approved.
        for index in 0..<200 {
            try await h.start("+336\(String(format: "%02d", index % 100))00\(String(format: "%04d", index))")
        }
        #expect(h.blocks.map(\.level) == [.region])
        #expect(h.blocks.first?.subject.region == "+33")
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "+33799000000", clientAddress: "192.0.2.7"))
        }
        #expect(error?.kind == .destinationBlocked)
    }

    /// The syntax parser's numbers, each in the ISO region of its calling code, as libphonenumber
    /// names regions.
    struct ISORegions: PhoneNumberParser {
        static let regions = ["1": "US", "33": "FR", "44": "GB"]

        func parse(_ text: String, region: String?) -> PhoneNumber? {
            guard var number = E164SyntaxParser().parse(text, region: region) else { return nil }
            let code = CallingCodes.callingCode(ofDigits: String(number.e164.dropFirst()))
            number.region = Self.regions[code]
            return number
        }

        func international(e164: String) -> String? { nil }
    }

    @Test("a safe-listed calling code is never blocked as a region, though regions are named FR, not +33")
    func safeListedRegion() async throws {
        let h = GuardHarness(safeList: ["+33"], phoneNumbers: ISORegions())
        for index in 0..<200 {
            try await h.start("+1415555\(String(format: "%04d", index))", approve: index % 10 < 7)
        }
        let sent = await h.sender.messages.count
        for index in 0..<200 {
            try await h.start("+336\(String(format: "%02d", index % 100))00\(String(format: "%04d", index))")
        }
        #expect(await h.sender.messages.count == sent + 200)
        #expect(h.blocks.isEmpty, "\(h.blocks.map { "\($0.level) \($0.subject.region)" })")
        // The same attack on a region not safe-listed is blocked as FR.
        let other = GuardHarness(phoneNumbers: ISORegions())
        for index in 0..<200 {
            try await other.start("+1415555\(String(format: "%04d", index))", approve: index % 10 < 7)
        }
        for index in 0..<200 {
            try await other.start(
                "+336\(String(format: "%02d", index % 100))00\(String(format: "%04d", index))")
        }
        #expect(other.blocks.map(\.subject.region) == ["FR"])
    }

    @Test(
        "a region block refuses its ranges that never converted and lets through those its users convert on"
    )
    func regionClearing() async throws {
        let h = GuardHarness()
        let error = try await Self.spreadOverFrance(h)
        #expect(error?.kind == .destinationBlocked)
        // +33612: 10 starts of the region's users, 8 approved, before the attack; it converts.
        let sent = await h.sender.messages.count
        try await h.start("+33612990001", approve: true)
        #expect(await h.sender.messages.count == sent + 1)
        // +33650: only the attack's two starts, never approved: refused.
        let attacked = await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "+33650990001", clientAddress: "192.0.2.7"))
        }
        #expect(attacked?.kind == .destinationBlocked)
        #expect(await h.sender.messages.count == sent + 1)
        let refusals = h.decisions.withLock { $0.filter { $0.action == .refuse } }
        #expect(refusals.map(\.level) == [.region, .region])
        #expect(refusals.map(\.subject.prefix) == ["+33799", "+33650"])
    }

    @Test(
        "in shadow mode a start that clears the region's block is counted with its approval, and one that does not is not"
    )
    func regionClearingShadow() async throws {
        let h = GuardHarness(mode: .shadow)
        #expect(try await Self.spreadOverFrance(h) == nil)
        try await h.start("+33612990001", approve: true)
        try await h.start("+33650990001", approve: true)
        let insights = try await h.verifier.conversionInsights(since: h.clock.date.addingTimeInterval(-3600))
        let prefix = { (name: String) in insights.prefixes.first { $0.prefix == name } }
        // +33612: its 10 starts, the attack's 2, and the one that cleared the block.
        #expect(prefix("+33612")?.sends == 13)
        #expect(prefix("+33612")?.approvals == 9)
        // +33650: the attack's 2 only; the start a block would have refused, and its approval, are not counted.
        #expect(prefix("+33650")?.sends == 2)
        #expect(prefix("+33650")?.approvals == 0)
        #expect(
            h.decisions.withLock { $0.filter { $0.action == .refuse }.map(\.subject.prefix) } == [
                "+33799", "+33650",
            ])
    }

    /// Other regions' 200 starts at 70%, +33612's 10 at 80%, then 190 starts spread over the 100
    /// prefixes +33600 to +33699, none approved, the last of which blocks the region (200 sends at
    /// 4%); answers the error of a start to +33799 after it.
    static func spreadOverFrance(_ h: GuardHarness) async throws -> VerifierError? {
        for index in 0..<200 {
            try await h.start("+1415555\(String(format: "%04d", index))", approve: index % 10 < 7)
        }
        for index in 0..<10 {
            try await h.start("+336129000\(String(format: "%02d", index))", approve: index < 8)
        }
        for index in 0..<190 {
            try await h.start("+336\(String(format: "%02d", index % 100))00\(String(format: "%04d", index))")
        }
        #expect(h.blocks.map(\.level) == [.region])
        return await verifierError { () async throws(VerifierError) in
            try await h.verifier.start(StartRequest(to: "+33799000000", clientAddress: "192.0.2.7"))
        }
    }

    @Test("a store failing the guard's steps lets starts and checks go on (the guard fails open)")
    func failOpen() async throws {
        let store = FaultyStore(failing: [.fraud])
        let h = GuardHarness(store: store)
        try await h.baseline()
        try await h.pump(25)
        #expect(h.blocks.isEmpty)
        #expect(await h.sender.messages.count == 45)
        let error = await verifierError { () async throws(VerifierError) in
            try await h.verifier.conversionInsights(since: h.clock.date)
        }
        #expect(error?.kind == .storeUnavailable)
    }

    @Test("in shadow mode an approval is counted when the look at the blocks fails (the guard fails open)")
    func shadowApprovalWhenReadFails() async throws {
        let store = FaultyStore(failing: [.fraudRead])
        let h = GuardHarness(mode: .shadow, store: store)
        // The gate's reads fail too, so every start is sent and counted; so is each approval.
        for index in 0..<4 {
            try await h.start("+4477009000\(String(format: "%02d", index))", approve: index < 3)
        }
        store.fail([])
        let insights = try await h.verifier.conversionInsights(since: h.clock.date.addingTimeInterval(-60))
        #expect(insights.prefixes.first { $0.prefix == "+447700" }?.sends == 4)
        #expect(insights.prefixes.first { $0.prefix == "+447700" }?.approvals == 3)
    }
}
