import Foundation

/// The pumping guard's rule: when a prefix (or a region) converts far below its baseline.
///
/// Conversion is approvals ÷ sends over the window, where a send is a start whose first code was
/// handed to the sender and an approval is that verification's right code.
///
/// - **Prefix**: a prefix with at least `minSends` sends is blocked when its conversion is under a
///   quarter of its region's baseline, the conversion of the region's other prefixes (the region's
///   sums minus the prefix's). When those other prefixes have fewer than `minSends` sends, or no
///   approval at all, the region has no baseline and the threshold is 5%: an attack cycling over
///   a few prefixes of a quiet region would otherwise give each a baseline of 0, under which
///   nothing converts less.
/// - **Region** (with ``FraudGuardPolicy/blocksRegions``): the same rule one level up, for attacks
///   spread so thin that no prefix reaches `minSends`. A region with at least 10 × `minSends`
///   sends is blocked when its conversion is under a quarter of the conversion of every other
///   region together (or 5% when the others have fewer than 10 × `minSends` sends, or none
///   approved).
/// - **What a region block holds**: the region's prefixes that have not shown they convert. A
///   start to a blocked region passes when its prefix, over the last day (the counters' reach),
///   has approvals and converts at or above the region's threshold over that day (a quarter of the
///   other regions' conversion, or 5%): ``clearsRegionBlock(prefix:region:all:)``. So a spread
///   attack's ranges, which never convert, are refused, and the ranges the region's real users
///   convert on are not.
///
/// A block lasts ``FraudGuardPolicy/blockDuration``, doubling with each repeat block of the same key.
public struct FraudRule: Sendable, Equatable {
    /// The sends a prefix needs before it is judged.
    public var minSends: Int
    /// The sends a region needs before it is judged (10 × `minSends`).
    public var regionMinSends: Int { minSends * 10 }
    /// A key converting under this fraction of its baseline is blocked.
    public static let baselineFraction = 0.25
    /// The threshold when there is no baseline.
    public static let floor = 0.05

    /// Creates the rule.
    public init(minSends: Int) {
        self.minSends = max(1, minSends)
    }

    /// One judgement: the figures and whether they call for a block.
    public struct Judgement: Sendable, Equatable {
        /// Sends of the key judged, in the window.
        public var sends: Int
        /// Approvals of the key judged, in the window.
        public var approvals: Int
        /// The baseline's conversion, or `nil` when there is none.
        public var baseline: Double?
        /// The conversion under which the key is blocked.
        public var threshold: Double
        /// Whether the key had enough sends to be judged and converts under the threshold.
        public var blocks: Bool

        /// The key's conversion (0 without sends).
        public var conversion: Double { sends == 0 ? 0 : Double(approvals) / Double(sends) }
    }

    /// Judges a prefix within its region's sums.
    public func judgePrefix(_ prefix: FraudCount, region: FraudCount) -> Judgement {
        judge(prefix, within: region, minSends: minSends)
    }

    /// Judges a region within the sums of every region.
    public func judgeRegion(_ region: FraudCount, all: FraudCount) -> Judgement {
        judge(region, within: all, minSends: regionMinSends)
    }

    /// Whether a prefix passes its region's block: over the day's sums given, the prefix has
    /// approvals and converts at or above the threshold its region is judged against (a quarter of
    /// the other regions' conversion, or 5% when they have fewer than 10 × `minSends` sends or
    /// none approved).
    ///
    /// `prefix`, `region` and `all` are the prefix's, its region's and every region's sums over the
    /// counters' reach (a day), not over the window: a range the region's users convert on keeps
    /// its record through an attack that started within the day.
    public func clearsRegionBlock(prefix: FraudCount, region: FraudCount, all: FraudCount) -> Bool {
        let threshold = Self.threshold(
            otherSends: all.sends - region.sends, otherApprovals: all.approvals - region.approvals,
            minSends: regionMinSends)
        let conversion = prefix.sends == 0 ? 0 : Double(prefix.approvals) / Double(prefix.sends)
        return prefix.approvals > 0 && conversion >= threshold.threshold
    }

    private func judge(_ part: FraudCount, within whole: FraudCount, minSends: Int) -> Judgement {
        let (baseline, threshold) = Self.threshold(
            otherSends: whole.sends - part.sends, otherApprovals: whole.approvals - part.approvals,
            minSends: minSends)
        var judgement = Judgement(
            sends: part.sends, approvals: part.approvals, baseline: baseline, threshold: threshold,
            blocks: false)
        judgement.blocks = part.sends >= minSends && judgement.conversion < threshold
        return judgement
    }

    /// The baseline (the others' conversion, when they have `minSends` sends and an approval) and
    /// the threshold.
    private static func threshold(
        otherSends: Int, otherApprovals: Int, minSends: Int
    ) -> (baseline: Double?, threshold: Double) {
        let baseline =
            otherSends >= minSends && otherApprovals > 0 ? Double(otherApprovals) / Double(otherSends) : nil
        return (baseline, baseline.map { $0 * baselineFraction } ?? floor)
    }
}

/// One decision of the pumping guard, for the log, the metric and the lifecycle event.
public struct FraudDecision: Sendable, Equatable {
    /// What the guard decided.
    public enum Action: String, Sendable, CaseIterable {
        /// A prefix or region was blocked (in shadow mode: would have been).
        case block
        /// A start to a blocked prefix or region was refused (in shadow mode: sent anyway).
        case refuse
    }

    /// Whether a decision is about a prefix or a whole region.
    public enum Level: String, Sendable {
        /// One prefix.
        case prefix
        /// A whole region.
        case region
    }

    /// What was decided.
    public var action: Action
    /// About a prefix or a region.
    public var level: Level
    /// The mode the guard ran in (`shadow` decisions refuse nothing).
    public var mode: FraudGuardPolicy.Mode
    /// The start's region, prefix and channel.
    public var subject: FraudSubject
    /// The block that the decision made or met.
    public var block: FraudBlockState
    /// The figures of a `block` decision, `nil` for a `refuse`.
    public var judgement: FraudRule.Judgement?
    /// When the decision was made.
    public var at: Date

    /// Creates a decision.
    public init(
        action: Action, level: Level, mode: FraudGuardPolicy.Mode, subject: FraudSubject,
        block: FraudBlockState, judgement: FraudRule.Judgement?, at: Date
    ) {
        self.action = action
        self.level = level
        self.mode = mode
        self.subject = subject
        self.block = block
        self.judgement = judgement
        self.at = at
    }
}
