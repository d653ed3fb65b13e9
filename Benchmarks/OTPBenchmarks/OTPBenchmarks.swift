import Foundation
import OTPCore
import OTPRedis
import OTPSQLite
import OTPServer

/// Measures, per store, the engine's checks per second beside the store's raw read-modify-write rate.
///
/// Both run in the same process, in alternating rounds, so the ratio compares like with like on
/// a shared machine. Usage: `OTPBenchmarks [--redis-port N] [--seconds S] [--rounds R] [--concurrency C]`.
@main
struct OTPBenchmarks {
    static func main() async throws {
        let options = try Options(CommandLine.arguments.dropFirst())
        let directory = NSTemporaryDirectory() + "otp-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var subjects: [Subject] = [
            Subject(name: "memory", raw: MemoryRaw(), makeStore: { MemoryStore() }),
            Subject(
                name: "sqlite (synchronous=NORMAL)",
                raw: try SQLiteRaw(path: directory + "/raw-normal.sqlite3", full: false),
                makeStore: {
                    try SQLiteStore(path: directory + "/engine-normal.sqlite3", durability: .normal)
                }),
            Subject(
                name: "sqlite (synchronous=FULL)",
                raw: try SQLiteRaw(path: directory + "/raw-full.sqlite3", full: true),
                makeStore: { try SQLiteStore(path: directory + "/engine-full.sqlite3", durability: .full) }),
        ]
        if let port = options.redisPort {
            let prefix = "otp-bench:\(UUID().uuidString):"
            subjects.append(
                Subject(
                    name: "redis", raw: try RedisRaw(port: port, key: prefix + "raw"),
                    makeStore: {
                        try RedisStore(host: "127.0.0.1", port: port, keyPrefix: prefix, connections: 2)
                    }))
        } else {
            print("(no --redis-port: Redis is left out)")
        }

        print(
            "OTPKit engine benchmark: \(options.rounds) rounds of \(options.seconds) s per measure, medians shown"
        )
        print("raw = the store's own atomic read-modify-write of one counter, from one caller")
        print(
            "check = Verifier.check with a wrong code (fetch, rate limits, attempt, compare), from one caller"
        )
        print("check ×\(options.concurrency) = the same from \(options.concurrency) concurrent callers")
        print("")
        var table: [[String]] = [
            ["store", "raw RMW/s", "checks/s", "ratio", "checks/s ×\(options.concurrency)", "ratio"]
        ]
        var memory: Result?
        for subject in subjects {
            let result = try await measure(subject, options: options)
            if subject.name == "memory" { memory = result }
            table.append([
                subject.name, format(result.raw), format(result.checks),
                String(format: "%.2f", result.checks / result.raw),
                format(result.concurrent), String(format: "%.2f", result.concurrent / result.raw),
            ])
        }
        printTable(table)
        if let memory {
            let (single, concurrent) = try await hmacRates(options: options)
            print("")
            print(
                "bare HMAC-SHA256 of a check's input (the hash every check computes): \(format(single))/s, "
                    + "×\(options.concurrency) \(format(concurrent))/s")
            print(
                String(
                    format: "memory checks at %.2f of it from one caller, %.2f from %d",
                    memory.checks / single, memory.concurrent / concurrent, options.concurrency))
        }
    }

    /// HMAC-SHA256 computations per second of a check's input (`id ‖ 0 ‖ code`) under a prepared
    /// key, from one caller and from as many as the checks use.
    static func hmacRates(options: Options) async throws -> (Double, Double) {
        let key = HMACSHA256.Key(Array(repeating: 7, count: 32))
        let message = Array("vf_-P7o2Fk-AAAAAAAAAAAAAAAAAAAAAA\u{0}482019".utf8)
        var single: [Double] = []
        var concurrent: [Double] = []
        for _ in 0..<options.rounds {
            var sink: UInt8 = 0
            single.append(
                try await rate(seconds: options.seconds) { sink ^= key.authenticationCode(message)[0] })
            if sink == 0xFF { print("") }  // Keeps the work from being optimised away.
            let clock = ContinuousClock()
            let start = clock.now
            let budget = Duration.milliseconds(Int(options.seconds * 1000))
            let total = await withTaskGroup(of: Int.self) { group in
                for _ in 0..<options.concurrency {
                    group.addTask {
                        var count = 0
                        var local: UInt8 = 0
                        while clock.now - start < budget {
                            for _ in 0..<16 { local ^= key.authenticationCode(message)[0] }
                            count += 16
                        }
                        return local == 0xFF ? count + 0 : count
                    }
                }
                return await group.reduce(0, +)
            }
            concurrent.append(Double(total) / Self.seconds(clock.now - start))
        }
        return (median(single), median(concurrent))
    }

    struct Result {
        var raw: Double
        var checks: Double
        var concurrent: Double
    }

    /// Alternates raw and engine rounds and keeps the median of each.
    static func measure(_ subject: Subject, options: Options) async throws -> Result {
        let load = try await EngineLoad(store: subject.makeStore())
        var raw: [Double] = []
        var checks: [Double] = []
        var concurrent: [Double] = []
        // One short warm-up of each, not counted.
        _ = try await rate(seconds: 0.2) { try await subject.raw.step() }
        _ = try await rate(seconds: 0.2) { try await load.wrongCheck() }
        for _ in 0..<options.rounds {
            raw.append(try await rate(seconds: options.seconds) { try await subject.raw.step() })
            checks.append(try await rate(seconds: options.seconds) { try await load.wrongCheck() })
            concurrent.append(
                try await concurrentRate(seconds: options.seconds, callers: options.concurrency, load))
        }
        return Result(raw: median(raw), checks: median(checks), concurrent: median(concurrent))
    }

    /// Operations per second of `step`, called back to back for about `seconds`.
    static func rate(seconds: Double, _ step: () async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        var count = 0
        while clock.now - start < budget {
            for _ in 0..<16 {
                try await step()
            }
            count += 16
        }
        return Double(count) / Self.seconds(clock.now - start)
    }

    /// Checks per second from several concurrent callers.
    static func concurrentRate(seconds: Double, callers: Int, _ load: EngineLoad) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var count = 0
                    while clock.now - start < budget {
                        try await load.wrongCheck()
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / Self.seconds(clock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func format(_ rate: Double) -> String {
        rate >= 10_000 ? String(format: "%.1fk", rate / 1000) : String(format: "%.0f", rate)
    }

    static func printTable(_ rows: [[String]]) {
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for (index, row) in rows.enumerated() {
            let cells = row.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }
            print(cells.joined(separator: "  "))
            if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
    }
}

/// One store under test: its raw loop and a way to make the engine's store.
struct Subject: Sendable {
    let name: String
    let raw: any RawReadModifyWrite
    let makeStore: @Sendable () throws -> any VerificationStore
}

/// Command-line options.
struct Options: Sendable {
    var redisPort: Int?
    var seconds = 1.0
    var rounds = 3
    var concurrency = 8

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw OptionError("\(flag) needs a value") }
            switch flag {
            case "--redis-port": redisPort = Int(value)
            case "--seconds": seconds = Double(value) ?? seconds
            case "--rounds": rounds = max(1, Int(value) ?? rounds)
            case "--concurrency": concurrency = max(1, Int(value) ?? concurrency)
            default: throw OptionError("unknown option \(flag)")
            }
        }
        if redisPort == nil, let text = ProcessInfo.processInfo.environment["OTP_BENCH_REDIS_PORT"] {
            redisPort = Int(text)
        }
    }
}

/// A bad command line.
struct OptionError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
