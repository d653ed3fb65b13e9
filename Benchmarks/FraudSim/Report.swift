import Foundation
import OTPEngine

/// The table and the bounds.
enum Report {
    static let header = """

        | attack | store | mode | attack starts | attack SMS sent | stopped | stopped after the first \
        min-sends per judged key¹ | legit starts | legit refused | attack cost | blocks (prefix/region) \
        | legit prefixes blocked |
        |---|---|---|---|---|---|---|---|---|---|---|---|
        """

    static func row(
        attack: AttackShape, store: String, mode: FraudGuardPolicy.Mode, _ outcome: Outcome, price: Double
    ) -> String {
        let prefixBlocks = outcome.blocks.filter { $0.hasPrefix("prefix") }.count
        let regionBlocks = outcome.blocks.count - prefixBlocks
        let after =
            outcome.attackAfterFirst == 0
            ? "n/a (no attacked key reached its minimum)"
            : "\(outcome.attackAfterFirstStopped)/\(outcome.attackAfterFirst) "
                + percent(outcome.attackAfterFirstStopped, of: outcome.attackAfterFirst)
        let stoppedWord = mode == .shadow ? " (would)" : ""
        return
            "| \(attack.rawValue) | \(store) | \(mode.rawValue) | \(outcome.attackStarts) | \(outcome.attackSent) "
            + "| \(outcome.attackStopped)\(stoppedWord) \(percent(outcome.attackStopped, of: outcome.attackStarts)) "
            + "| \(after) | \(outcome.legitStarts) | \(outcome.legitRefused)\(stoppedWord) "
            + "| \(String(format: "%.2f", Double(outcome.attackSent) * price)) USD "
            + "| \(prefixBlocks)/\(regionBlocks) | \(outcome.legitPrefixesBlocked.count) |"
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        whole == 0 ? "(–)" : String(format: "(%.1f%%)", 100 * Double(part) / Double(whole))
    }

    /// Whether a run pair met the bounds, and the lines that say so.
    static func bounds(
        attack: AttackShape, on: Outcome, shadow: Outcome, minSends: Int
    ) -> (met: Bool, text: String) {
        let share =
            on.attackAfterFirst == 0 ? 0 : Double(on.attackAfterFirstStopped) / Double(on.attackAfterFirst)
        let stopped = on.attackAfterFirst > 0 && share >= 0.95
        let noLegit = on.legitPrefixesBlocked.isEmpty && shadow.legitPrefixesBlocked.isEmpty
        let same =
            on.blocks == shadow.blocks && on.attackStopped == shadow.attackStopped
            && on.legitRefused == shadow.legitRefused
        let clean = on.otherErrors == 0 && shadow.otherErrors == 0
        let noLegitRefused = on.legitRefused == 0 && shadow.legitRefused == 0
        let judged =
            attack == .prefixes ? "\(minSends) sends per prefix" : "\(minSends * 10) sends to the region"
        var lines = [
            "  bounds (\(attack.rawValue)): ≥ 95% of attack starts stopped after the first \(judged): "
                + "\(stopped ? "met" : "NOT met") "
                + (on.attackAfterFirst == 0 ? "(no attacked key reached its minimum)" : ""),
            "  no legitimate prefix blocked and no legitimate start refused: "
                + "\(noLegit && noLegitRefused ? "met" : "NOT met") (refused by level: "
                + "\(levels(on.legitRefusedByLevel))); shadow's decisions equal on's: "
                + "\(same ? "met" : "NOT met") (\(on.blocks.count) blocks: \(on.blocks.joined(separator: "; ")))",
            "  attack SMS sent before the first block: \(on.attackSentBeforeBlock); after it: "
                + "\(on.attackSentAfterBlock)"
                + (attack == .spread
                    ? " (to the ranges the region's users convert on, which clear its block)" : ""),
        ]
        if !clean { lines.append("  unexpected errors: on \(on.otherErrors), shadow \(shadow.otherErrors)") }
        if attack == .spread {
            lines.append(
                "  spread: no range reaches \(minSends) sends in the window, so the attack is judged as its "
                    + "region, from \(minSends * 10) sends; overall \(on.attackStopped) of \(on.attackStarts) "
                    + "attack starts stopped \(percent(on.attackStopped, of: on.attackStarts)).")
        }
        return (stopped && noLegit && noLegitRefused && same && clean, lines.joined(separator: "\n"))
    }

    /// Refusals by block level, such as `prefix 0, region 0`.
    static func levels(_ counts: [String: Int]) -> String {
        ["prefix", "region"].map { "\($0) \(counts[$0, default: 0])" }.joined(separator: ", ")
    }

    static func footnote(_ scenario: Scenario) -> String {
        """

        Rules: a prefix (calling code + national digits − 6, 2 to 4 digits) with ≥ \(scenario.minSends) sends \
        in the window is blocked when it converts under a quarter of its region's other prefixes' conversion \
        (5% when they have < \(scenario.minSends) sends or no approval); a region with \
        ≥ \(scenario.minSends * 10) sends is blocked when it converts under a quarter of every other \
        region's conversion together (5% when those have < \(scenario.minSends * 10) or no approval), and its block refuses only starts to its prefixes that have \
        not converted, over the last day, at that threshold (the ranges its users convert on pass). Blocks \
        last 12 h, doubling on each repeat. Shadow counts what on would and refuses nothing ("would" = what \
        on refuses).
        ¹ The key the rule judges the attack under, from its minimum: each attacked prefix after its first \
        \(scenario.minSends) attack sends for the prefix run; for the spread, whose 200 ranges get about one \
        send an hour each, so that no prefix of it ever reaches \(scenario.minSends), the attacked region \
        after its first \(scenario.minSends * 10) attack sends (its minimum as a region). The "stopped" column \
        counts every attack start.
        """
    }
}
