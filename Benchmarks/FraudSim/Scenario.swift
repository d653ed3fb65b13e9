import Foundation
import OTPEngine

/// The attack of a run.
enum AttackShape: String, CaseIterable {
    /// Starts to four prefixes of one region that no legitimate user has.
    case prefixes
    /// Starts spread evenly over the attacked region's whole mobile range.
    case spread
}

/// One region of legitimate users.
struct Region {
    /// The calling code.
    let code: String
    /// Digits of a national number.
    let nationalLength: Int
    /// The first national digit of its mobile numbers.
    let lead: String
    /// Legitimate starts an hour, on average over the day's curve.
    let perHour: Double
    /// The share of starts whose user types the code.
    let conversion: Double
}

/// One start of the simulated day.
struct PlannedStart {
    /// Seconds from the day's start.
    let at: Int
    /// The E.164 number.
    let to: String
    /// Whether the attack sent it.
    let isAttack: Bool
    /// Whether its user types the code, and after how many seconds.
    let approveAfter: Int?
    /// The client address it comes from.
    let client: String
}

/// The day: its regions, its length, the attack's hours, the guard's settings.
struct Scenario {
    let smoke: Bool
    let minSends = 20
    let window: Duration = .seconds(3600)
    let block: Duration = .seconds(12 * 3600)
    /// The attacked region (France: nine national digits, prefixes of three).
    let target = Region(code: "33", nationalLength: 9, lead: "6", perHour: 60, conversion: 0.7)
    let regions: [Region]
    /// Attack starts an hour.
    let attackPerHour = 240.0

    init(smoke: Bool) {
        self.smoke = smoke
        regions = [
            Region(code: "1", nationalLength: 10, lead: "4", perHour: 120, conversion: 0.75),
            Region(code: "44", nationalLength: 10, lead: "7", perHour: 90, conversion: 0.72),
            Region(code: "49", nationalLength: 11, lead: "1", perHour: 80, conversion: 0.68),
            target,
            Region(code: "34", nationalLength: 9, lead: "6", perHour: 50, conversion: 0.65),
            Region(code: "39", nationalLength: 10, lead: "3", perHour: 40, conversion: 0.62),
            Region(code: "81", nationalLength: 10, lead: "9", perHour: 40, conversion: 0.78),
            Region(code: "91", nationalLength: 10, lead: "9", perHour: 30, conversion: 0.6),
            Region(code: "55", nationalLength: 11, lead: "1", perHour: 25, conversion: 0.8),
            Region(code: "61", nationalLength: 9, lead: "4", perHour: 20, conversion: 0.7),
        ]
    }

    /// The simulated hours of the day: a whole day, or 08:00–12:00 for the smoke run.
    var hours: (first: Int, last: Int) { smoke ? (8, 12) : (0, 24) }
    /// The attack's hours: 08:00–20:00, or 09:00–11:00 for the smoke run.
    var attackHours: (first: Int, last: Int) { smoke ? (9, 11) : (8, 20) }

    /// The daily curve: quiet nights, a morning and an evening peak.
    static func curve(hour: Double) -> Double {
        0.25 + 1.3 * exp(-pow((hour - 10.5) / 2, 2)) + 1.1 * exp(-pow((hour - 19.5) / 2, 2))
    }

    /// The prefix depth of a region's numbers (``FraudSubject/prefix(of:)``).
    static func depth(_ region: Region) -> Int {
        min(4, max(2, region.nationalLength - 6))
    }

    /// The eight ranges a region's legitimate users' numbers fall in.
    func legitRanges(_ region: Region, random: inout SplitMix) -> [String] {
        var ranges: Set<String> = []
        while ranges.count < 8 {
            var digits = region.lead
            while digits.count < Self.depth(region) { digits += String(random.below(10)) }
            // The attack's four ranges stay apart from the target's legitimate ones.
            if region.code == target.code, attackRanges.contains(digits) { continue }
            ranges.insert(digits)
        }
        return ranges.sorted()
    }

    /// The target ranges the prefix attack sends to.
    let attackRanges = ["640", "641", "642", "643"]

    /// The day's starts, in time order, the same for every store and mode.
    func plan(_ attack: AttackShape) -> [PlannedStart] {
        var random = SplitMix(seed: 34)
        var starts: [PlannedStart] = []
        let first = hours.first * 3600
        for (index, region) in regions.enumerated() {
            let ranges = legitRanges(region, random: &random)
            for minute in stride(from: first, to: hours.last * 3600, by: 60) {
                let hour = Double(minute) / 3600
                let expected = region.perHour / 60 * Self.curve(hour: hour)
                for _ in 0..<random.poisson(expected) {
                    let range = ranges[random.below(ranges.count)]
                    let number =
                        "+" + region.code + range + random.digits(region.nationalLength - range.count)
                    let converts = random.unit() < region.conversion
                    starts.append(
                        PlannedStart(
                            at: minute + random.below(60) - first, to: number, isAttack: false,
                            approveAfter: converts ? 15 + random.below(165) : nil,
                            client: "10.\(index).\(random.below(250)).\(random.below(250))"))
                }
            }
        }
        let attackStart = attackHours.first * 3600
        let count = Int(attackPerHour) * (attackHours.last - attackHours.first)
        let spacing = Double((attackHours.last - attackHours.first) * 3600) / Double(count)
        for index in 0..<count {
            let national: String
            switch attack {
            case .prefixes:
                let range = attackRanges[index % attackRanges.count]
                national = range + random.digits(target.nationalLength - range.count)
            case .spread:
                national = ["6", "7"][random.below(2)] + random.digits(target.nationalLength - 1)
            }
            starts.append(
                PlannedStart(
                    at: attackStart + Int(Double(index) * spacing) - first, to: "+" + target.code + national,
                    isAttack: true, approveAfter: nil,
                    client: "203.0.113.\(random.below(250))"))
        }
        return starts.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(
            \.element)
    }

    /// The lines that state the scenario and the rules.
    func summary(price: Double) -> String {
        let span = smoke ? "a 4-hour smoke run (08:00–12:00)" : "a day (00:00–24:00)"
        return """
            FraudSim: \(span) on a manual clock, through Verifier and the store.
            Legitimate users: 10 regions (calling codes \(regions.map(\.code).joined(separator: ", "))), \
            8 ranges each, converting 60–80%, with morning and evening peaks.
            Attack: \(Int(attackPerHour)) starts an hour to +\(target.code), \
            \(attackHours.first):00–\(attackHours.last):00, never converting; run "prefixes": 4 ranges \
            (+\(target.code)\(attackRanges.joined(separator: ", +\(target.code)"))); run "spread": the \
            whole +\(target.code) 6/7 mobile range (200 ranges).
            Guard: --fraud-min-sends \(minSends), --fraud-window 3600, --fraud-block 43200; cost at \
            \(String(format: "%.2f", price)) USD per SMS (a stated flat price, not a tariff).
            """
    }
}

/// A small seeded generator, so every store and mode sees the same day.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func digits(_ count: Int) -> String {
        String((0..<max(0, count)).map { _ in Character(String(below(10))) })
    }

    /// A Poisson draw (Knuth's method; the means here are small).
    mutating func poisson(_ mean: Double) -> Int {
        let limit = exp(-mean)
        var product = unit()
        var count = 0
        while product > limit {
            count += 1
            product *= unit()
        }
        return count
    }
}
