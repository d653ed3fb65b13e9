import Foundation
import OTPEngine

/// The table and the bounds.
enum Report {
    static let header = """

        | attack | store | mode | attack starts | attack SMS sent | stopped | stopped after first 20/prefix \
        | legit starts | legit refused | attack cost | blocks (prefix/region) | legit prefixes blocked |
        |---|---|---|---|---|---|---|---|---|---|---|---|
        """

    static func row(
        attack: AttackShape, store: String, mode: FraudGuardPolicy.Mode, _ outcome: Outcome, price: Double
    ) -> String {
        let prefixBlocks = outcome.blocks.filter { $0.hasPrefix("prefix") }.count
        let regionBlocks = outcome.blocks.count - prefixBlocks
        let after =
            outcome.attackAfterFirst == 0
            ? "n/a (no prefix reached 20)"
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
        let same = on.blocks == shadow.blocks
        let clean = on.otherErrors == 0 && shadow.otherErrors == 0
        var lines = [
            "  bounds (\(attack.rawValue)): ≥ 95% of attack starts stopped after the first \(minSends) sends "
                + "per prefix: \(stopped ? "met" : "NOT met") "
                + (on.attackAfterFirst == 0 ? "(no attacked prefix reached \(minSends) sends)" : ""),
            "  no legitimate prefix blocked: \(noLegit ? "met" : "NOT met"); shadow's decisions equal on's: "
                + "\(same ? "met" : "NOT met") (\(on.blocks.count) blocks: \(on.blocks.joined(separator: "; ")))",
        ]
        if !clean { lines.append("  unexpected errors: on \(on.otherErrors), shadow \(shadow.otherErrors)") }
        if attack == .spread {
            let overall = percent(on.attackStopped, of: on.attackStarts)
            lines.append(
                "  spread: per-prefix blocking alone cannot stop it (no range reaches \(minSends) sends "
                    + "in the window); the region rule stopped \(on.attackStopped) of \(on.attackStarts) "
                    + "attack starts \(overall), refusing \(on.legitRefused) legitimate starts of the region "
                    + "while its block lasted.")
        }
        return (stopped && noLegit && same && clean, lines.joined(separator: "\n"))
    }

    static func footnote(_ scenario: Scenario) -> String {
        """

        Rules: a prefix (calling code + national digits − 6, 2 to 4 digits) with ≥ \(scenario.minSends) sends \
        in the window is blocked when it converts under a quarter of its region's other prefixes' conversion \
        (5% when they have < \(scenario.minSends) sends); a region with ≥ \(scenario.minSends * 10) sends \
        is blocked when it converts under a quarter of every other region's conversion together (5% when \
        those have < \(scenario.minSends * 10)). Blocks last 12 h, doubling on each repeat. Shadow counts what \
        on would and refuses nothing ("would" = what on refuses).
        """
    }
}
