import Foundation

/// The pumping guard's rule: when a prefix (or a region) converts far below its baseline.
///
/// Conversion is approvals ÷ sends over the window, where a send is a start whose first code was
/// handed to the sender and an approval is that verification's right code.
///
/// - **Prefix**: a prefix with at least `minSends` sends is blocked when its conversion is under a
///   quarter of its region's baseline, the conversion of the region's other prefixes (the region's
///   sums minus the prefix's). When those other prefixes have fewer than `minSends` sends, the
///   region has no baseline and the threshold is 5%.
/// - **Region** (with ``FraudGuardPolicy/blocksRegions``): the same rule one level up, for attacks
///   spread so thin that no prefix reaches `minSends`. A region with at least 10 × `minSends`
///   sends is blocked when its conversion is under a quarter of the conversion of every other
///   region together (or 5% when the others have fewer than 10 × `minSends` sends).
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

    private func judge(_ part: FraudCount, within whole: FraudCount, minSends: Int) -> Judgement {
        let otherSends = whole.sends - part.sends
        let otherApprovals = whole.approvals - part.approvals
        let baseline = otherSends >= minSends ? Double(otherApprovals) / Double(otherSends) : nil
        let threshold = baseline.map { $0 * Self.baselineFraction } ?? Self.floor
        var judgement = Judgement(
            sends: part.sends, approvals: part.approvals, baseline: baseline, threshold: threshold,
            blocks: false)
        judgement.blocks = part.sends >= minSends && judgement.conversion < threshold
        return judgement
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
