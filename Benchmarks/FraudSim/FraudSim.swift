import Foundation
import OTPCore
import OTPEngine
import OTPSQLite

/// Simulates a day of SMS starts on a manual clock through the real engine and store, with and
/// without a pumping attack, and prints what the pumping guard stopped.
///
/// Usage: `FraudSim [--smoke] [--stores memory,sqlite] [--price USD]`. Exits 1 when a bound of
/// either attack (the prefixes or the spread) is missed, 2 on a bad option.
///
/// The bound on attack starts stopped counts, per key the rule judges the attack under, the starts
/// after that key's minimum of attack SMS sent: `minSends` per attacked prefix for the prefix
/// attack; 10 × `minSends` to the attacked region for the spread, whose ranges never reach
/// `minSends` each (``Simulation/judgedKey(_:)``). The table also shows the share of every attack
/// start stopped.
@main
struct FraudSim {
    static func main() async throws {
        let options: SimOptions
        do {
            options = try SimOptions(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("FraudSim: \(error)\n".utf8))
            exit(2)
        }
        let directory = NSTemporaryDirectory() + "otp-fraud-sim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = Scenario(smoke: options.smoke)
        print(scenario.summary(price: options.price))
        print(Report.header)
        var failed = false
        for attack in [AttackShape.prefixes, .spread] {
            let plan = scenario.plan(attack)
            for store in options.stores {
                var outcomes: [FraudGuardPolicy.Mode: Outcome] = [:]
                for mode in [FraudGuardPolicy.Mode.on, .shadow] {
                    let path = directory + "/\(attack.rawValue)-\(store)-\(mode.rawValue).sqlite3"
                    let made: any VerificationStore =
                        store == "sqlite" ? try SQLiteStore(path: path) : MemoryStore()
                    let outcome = try await Simulation(
                        plan: plan, store: made, mode: mode, scenario: scenario, attack: attack
                    )
                    .run()
                    await made.shutdown()
                    outcomes[mode] = outcome
                    print(Report.row(attack: attack, store: store, mode: mode, outcome, price: options.price))
                }
                guard let on = outcomes[.on], let shadow = outcomes[.shadow] else { continue }
                let verdict = Report.bounds(
                    attack: attack, on: on, shadow: shadow, minSends: scenario.minSends)
                print(verdict.text)
                if !verdict.met { failed = true }
            }
        }
        print(Report.footnote(scenario))
        if failed { exit(1) }
    }
}

/// The options.
struct SimOptions {
    var smoke = false
    var stores = ["memory", "sqlite"]
    var price = 0.08

    init(_ arguments: ArraySlice<String>) throws(SimError) {
        var rest = arguments
        while let option = rest.popFirst() {
            switch option {
            case "--smoke": smoke = true
            case "--stores":
                guard let value = rest.popFirst() else { throw SimError("--stores needs a list") }
                stores = value.split(separator: ",").map(String.init)
                guard !stores.isEmpty, stores.allSatisfy({ $0 == "memory" || $0 == "sqlite" }) else {
                    throw SimError("--stores takes memory and sqlite, not \(value)")
                }
            case "--price":
                guard let value = rest.popFirst(), let number = Double(value), number >= 0 else {
                    throw SimError("--price needs a price in USD such as 0.08")
                }
                price = number
            default: throw SimError("unknown option \(option)")
            }
        }
    }
}

/// A bad option.
struct SimError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
