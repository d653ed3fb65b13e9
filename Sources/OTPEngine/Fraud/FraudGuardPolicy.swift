import Foundation

/// The pumping guard's settings: its mode, window, threshold of sends, block length and safe list.
public struct FraudGuardPolicy: Sendable, Hashable {
    /// What the guard does with its decisions.
    public enum Mode: String, Sendable, CaseIterable {
        /// Counts, decides and blocks: starts to a blocked prefix, or to a blocked region's prefix
        /// that does not clear the block, are refused.
        case on
        /// Counts and decides (blocks are stored, logged and counted) but refuses nothing.
        case shadow
        /// Counts nothing and decides nothing.
        case off
    }

    /// What the guard does; `off` by default for an embedded engine (`otp serve` chooses `on` with a
    /// paid SMS sender and `shadow` otherwise).
    public var mode: Mode
    /// The sliding window the counters sum over (12 buckets of a twelfth each).
    public var window: Duration
    /// The sends a prefix needs in the window before its conversion is judged.
    public var minSends: Int
    /// The first block's length; each repeat block of the same key doubles it.
    public var blockDuration: Duration
    /// Numbers and prefixes (`+` and digits) that are never blocked: a number is safe when its
    /// E.164 form starts with an entry.
    public var safeList: [String]
    /// Whether a region whose own conversion collapses is blocked too (the rule for attacks spread
    /// over a region's whole range, see ``FraudRule``); its block refuses only the region's prefixes
    /// that have not converted over the day.
    public var blocksRegions: Bool

    /// Creates settings; the defaults are those of `otp serve`.
    public init(
        mode: Mode = .off, window: Duration = .seconds(3600), minSends: Int = 20,
        blockDuration: Duration = .seconds(12 * 3600), safeList: [String] = [], blocksRegions: Bool = true
    ) {
        self.mode = mode
        self.window = window
        self.minSends = minSends
        self.blockDuration = blockDuration
        self.safeList = safeList
        self.blocksRegions = blocksRegions
    }

    /// Whether a number (E.164) is on the safe list.
    public func isSafe(_ e164: String) -> Bool {
        safeList.contains { !$0.isEmpty && e164.hasPrefix($0) }
    }

    /// The length of one counter bucket: a twelfth of the window, at least one second.
    public var bucketLength: Duration {
        max(.seconds(1), window / 12)
    }

    /// How long a key's repeat count is remembered after its block ends: a week.
    public static let blockMemory: Duration = .seconds(7 * 24 * 3600)
}

/// The counter and block keys of the guard, as the stores hold them.
///
/// `p|<channel>|<region>|<prefix>` for a prefix, `r|<channel>|<region>` for a region and
/// `a|<channel>` for every region. A region or prefix never holds `|`.
public enum FraudKey {
    /// A prefix's key.
    public static func prefix(_ subject: FraudSubject) -> String {
        "p|\(subject.channel.rawValue)|\(subject.region)|\(subject.prefix)"
    }

    /// A region's key.
    public static func region(_ subject: FraudSubject) -> String {
        "r|\(subject.channel.rawValue)|\(subject.region)"
    }

    /// The key of every region of a channel.
    public static func all(_ subject: FraudSubject) -> String {
        "a|\(subject.channel.rawValue)"
    }
}
