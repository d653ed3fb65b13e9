import Foundation
import OTPCore
import OTPEngine
import OTPRedis
import OTPSQLite

/// Measures, per store, the engine's checks per second beside the store's raw read-modify-write rate.
///
/// Both run in the same process, in alternating rounds, so the ratio compares like with like on
/// a shared machine. Usage: `OTPBenchmarks [--redis-port N] [--seconds S] [--rounds R] [--concurrency C]
/// [--stores memory,sqlite,redis] [--fixed-checks N]`; `sqlite` is both durabilities, `sqlite-normal` or
/// `sqlite-full` one of them.
@main
struct OTPBenchmarks {
    static func main() async throws {
        let options: Options
        do {
            options = try Options(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("OTPBenchmarks: \(error)\n".utf8))
            exit(2)
        }
        let directory = NSTemporaryDirectory() + "otp-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        var subjects: [Subject] = [
            Subject(name: "memory", kind: "memory", raw: MemoryRaw(), makeStore: { MemoryStore() }),
            Subject(
                name: "sqlite (synchronous=NORMAL)", kind: "sqlite", variant: "sqlite-normal",
                raw: try SQLiteRaw(path: directory + "/raw-normal.sqlite3", full: false),
                makeStore: {
                    try SQLiteStore(path: directory + "/engine-normal.sqlite3", durability: .normal)
                }),
            Subject(
                name: "sqlite (synchronous=FULL)", kind: "sqlite", variant: "sqlite-full",
                raw: try SQLiteRaw(path: directory + "/raw-full.sqlite3", full: true),
                makeStore: { try SQLiteStore(path: directory + "/engine-full.sqlite3", durability: .full) }),
        ]
        if let port = options.redisPort, options.stores.contains("redis") {
            let prefix = "otp-bench:\(UUID().uuidString):"
            subjects.append(
                Subject(
                    name: "redis", kind: "redis", raw: try RedisRaw(port: port, key: prefix + "raw"),
                    makeStore: {
                        try RedisStore(host: "127.0.0.1", port: port, keyPrefix: prefix, connections: 2)
                    }, serverCPU: try RedisServerCPU(port: port, key: prefix + "calls")))
        } else if options.stores.contains("redis") {
            print("(no --redis-port: Redis is left out)")
        }
        subjects.removeAll { !options.stores.contains($0.kind) && !options.stores.contains($0.variant) }
        if let count = options.fixedChecks {
            // A fixed amount of work and nothing else, for `perf stat`: instructions per check hold
            // still where times on a shared machine do not.
            for subject in subjects {
                try await fixedChecks(count, on: subject)
                print("\(subject.name): \(count) checks")
            }
            return
        }

        print(
            "OTPKit engine benchmark: \(options.rounds) rounds of \(options.seconds) s per measure, medians shown"
        )
        print("raw = the store's own atomic read-modify-write of one counter, from one caller")
        print(
            "check = Verifier.check with a wrong code (fetch, rate limits, attempt, compare), from one caller"
        )
        print(
            "check ×\(options.concurrency) = the same from \(options.concurrency) concurrent callers, "
                + "each checking its own verification from its own address")
        print("")
        var table: [[String]] = [
            ["store", "raw RMW/s", "checks/s", "ratio", "checks/s ×\(options.concurrency)", "ratio"]
        ]
        var memory: Result?
        var serverCPU: [(Subject, Result)] = []
        for subject in subjects {
            let result = try await measure(subject, options: options)
            if subject.name == "memory" { memory = result }
            if result.serverMicroseconds != nil { serverCPU.append((subject, result)) }
            table.append([
                subject.name, format(result.raw), format(result.checks),
                String(format: "%.2f", result.checks / result.raw),
                format(result.concurrent), String(format: "%.2f", result.concurrent / result.raw),
            ])
        }
        printTable(table)
        for (subject, result) in serverCPU {
            if let cpu = subject.serverCPU, let check = result.serverMicroseconds {
                try printServerCPU(cpu, check: check, options: options)
            }
        }
        if let memory {
            let (single, concurrent, array) = try await hmacRates(options: options)
            print("")
            print(
                "bare HMAC-SHA256 of a check's input (the hash every check computes): \(format(single))/s, "
                    + "×\(options.concurrency) \(format(concurrent))/s")
            print(
                String(
                    format: "memory checks at %.2f of it from one caller, %.2f from %d",
                    memory.checks / single, memory.concurrent / concurrent, options.concurrency))
            print(
                String(
                    format: "(returned as an array, as HMACSHA256.Key.authenticationCode does: %@/s, "
                        + "memory checks at %.2f of that from one caller)",
                    format(array), memory.checks / array))
        }
    }

    /// HMAC-SHA256 computations per second of a check's input (`id ‖ 0 ‖ code`) under a prepared
    /// key, from one caller and from as many as the checks use: the server's prepared key writing to
    /// a buffer on the stack, with nothing around it, in a loop the compiler sees whole.
    ///
    /// Also the rate from one caller of the server's public call, whose code comes back in an array:
    /// the measure earlier versions of this benchmark used.
    static func hmacRates(options: Options) async throws -> (Double, Double, Double) {
        let key = BareHMAC(key: Array(repeating: 7, count: 32))
        let arrayKey = HMACSHA256.Key(Array(repeating: 7, count: 32))
        let message = Array("vf_-P7o2Fk-AAAAAAAAAAAAAAAAAAAAAA\u{0}482019".utf8)
        var single: [Double] = []
        var concurrent: [Double] = []
        var array: [Double] = []
        for _ in 0..<options.rounds {
            single.append(await hmacRate(seconds: options.seconds, callers: 1) { key.firstByte(of: message) })
            array.append(
                await hmacRate(seconds: options.seconds, callers: 1) {
                    arrayKey.authenticationCode(message)[0]
                })
            concurrent.append(
                await hmacRate(seconds: options.seconds, callers: options.concurrency) {
                    key.firstByte(of: message)
                })
        }
        return (median(single), median(concurrent), median(array))
    }

    /// Calls of `code` per second from `callers` concurrent tasks, each in a loop of its own; every
    /// byte is folded into one that decides whether an empty line is printed, so that no call can be
    /// left out.
    static func hmacRate(
        seconds: Double, callers: Int, _ code: @escaping @Sendable () -> UInt8
    ) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        let (total, folded) = await withTaskGroup(of: (Int, UInt8).self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var count = 0
                    var folded: UInt8 = 0
                    while clock.now - start < budget {
                        for _ in 0..<16 { folded ^= code() }
                        count += 16
                    }
                    return (count, folded)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 ^ $1.1) }
        }
        if folded == 0xFF { print("") }
        return Double(total) / Self.seconds(clock.now - start)
    }

    struct Result {
        var raw: Double
        var checks: Double
        var concurrent: Double
        /// The store server's CPU per check from the concurrent callers, in microseconds, where the
        /// store is a server of its own that says what it spent (Redis).
        var serverMicroseconds: Double?
    }

    /// `redis-server`'s CPU per call for the engine's check and for the calls it is made of.
    static func printServerCPU(_ cpu: RedisServerCPU, check: Double, options: Options) throws {
        // About as many calls as the checks in one round, within bounds that keep the figure readable.
        let count = max(2_000, min(100_000, Int(options.seconds * 20_000)))
        var rows: [[String]] = [["redis-server CPU per call (INFO cpu)", "µs"]]
        rows.append([
            "Verifier.check ×\(options.concurrency), through RedisStore", String(format: "%.1f", check),
        ])
        for call in cpu.calls {
            var figures: [Double] = []
            for _ in 0..<options.rounds {
                figures.append(try cpu.microsecondsPerCall(call.arguments, count: count))
            }
            rows.append([call.name + ", pipelines of 16", String(format: "%.1f", median(figures))])
        }
        print("")
        printTable(rows)
    }

    /// Alternates raw and engine rounds and keeps the median of each.
    static func measure(_ subject: Subject, options: Options) async throws -> Result {
        let load = try await EngineLoad(
            store: subject.makeStore(), callers: options.concurrency, answersInline: subject.kind == "memory")
        var raw: [Double] = []
        var checks: [Double] = []
        var concurrent: [Double] = []
        var serverMicroseconds: [Double] = []
        // One short warm-up of each, not counted.
        _ = try await rate(seconds: 0.2) { try await subject.raw.step() }
        _ = try await checkRate(seconds: 0.2, load)
        for _ in 0..<options.rounds {
            raw.append(try await rate(seconds: options.seconds) { try await subject.raw.step() })
            checks.append(try await checkRate(seconds: options.seconds, load))
            let before = try subject.serverCPU?.serverSeconds()
            let (rate, count) = try await concurrentRate(
                seconds: options.seconds, callers: options.concurrency, load)
            concurrent.append(rate)
            if let before, let after = try subject.serverCPU?.serverSeconds(), count > 0 {
                serverMicroseconds.append((after - before) * 1e6 / Double(count))
            }
        }
        return Result(
            raw: median(raw), checks: median(checks), concurrent: median(concurrent),
            serverMicroseconds: serverMicroseconds.isEmpty ? nil : median(serverMicroseconds))
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

    /// `count` wrong-code checks from one caller, off the main actor.
    static func fixedChecks(_ count: Int, on subject: Subject) async throws {
        let load = try await EngineLoad(
            store: subject.makeStore(), callers: 1, answersInline: subject.kind == "memory")
        if load.immediate {
            for _ in 0..<count { try load.wrongCheckImmediately() }
        } else {
            for _ in 0..<count { try await load.wrongCheck() }
        }
    }

    /// Checks per second from one caller: a plain loop when checks run on the caller's thread, so
    /// that no suspension point is counted that the server's path does not have.
    static func checkRate(seconds: Double, _ load: EngineLoad) async throws -> Double {
        guard load.immediate else { return try await rate(seconds: seconds) { try await load.wrongCheck() } }
        var failure: (any Error)?
        let checks = syncRate(seconds: seconds) {
            guard failure == nil else { return }
            do { try load.wrongCheckImmediately() } catch { failure = error }
        }
        if let failure { throw failure }
        return checks
    }

    /// Operations per second of a synchronous `step`, called back to back for about `seconds`.
    static func syncRate(seconds: Double, _ step: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        var count = 0
        while clock.now - start < budget {
            for _ in 0..<16 { step() }
            count += 16
        }
        return Double(count) / Self.seconds(clock.now - start)
    }

    /// Checks per second from several concurrent callers, and how many they made.
    static func concurrentRate(
        seconds: Double, callers: Int, _ load: EngineLoad
    ) async throws -> (rate: Double, count: Int) {
        let clock = ContinuousClock()
        let start = clock.now
        let budget = Duration.milliseconds(Int(seconds * 1000))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for number in 0..<callers {
                group.addTask {
                    var count = 0
                    while clock.now - start < budget {
                        if load.immediate {
                            for _ in 0..<16 { try load.wrongCheckImmediately(by: number) }
                            count += 16
                        } else {
                            try await load.wrongCheck(by: number)
                            count += 1
                        }
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return (Double(total) / Self.seconds(clock.now - start), total)
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
    /// What `--stores` calls it.
    let kind: String
    /// What `--stores` calls this one alone, where a kind has several (`sqlite-normal`, `sqlite-full`).
    var variant = ""
    let raw: any RawReadModifyWrite
    let makeStore: @Sendable () throws -> any VerificationStore
    /// The store server's own account of its CPU, where it gives one (Redis).
    var serverCPU: RedisServerCPU?
}

/// Command-line options.
struct Options: Sendable {
    var redisPort: Int?
    var seconds = 1.0
    var rounds = 3
    var concurrency = 8
    var stores: Set<String> = ["memory", "sqlite", "redis"]
    /// When set, only this many checks per store from one caller, unmeasured (`--fixed-checks N`).
    var fixedChecks: Int?

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw OptionError("\(flag) needs a value") }
            switch flag {
            case "--redis-port": redisPort = try Self.whole(value, flag, in: 1...65535)
            case "--seconds":
                guard let number = Double(value), number > 0, number <= 3600 else {
                    throw OptionError("--seconds needs a number above 0 and at most 3600, not \(value)")
                }
                seconds = number
            case "--rounds": rounds = try Self.whole(value, flag, in: 1...1000)
            case "--concurrency": concurrency = try Self.whole(value, flag, in: 1...1024)
            case "--fixed-checks": fixedChecks = try Self.whole(value, flag, in: 1...1_000_000_000)
            case "--stores":
                let named = Set(value.split(separator: ",").map(String.init))
                let known: Set<String> = ["memory", "sqlite", "sqlite-normal", "sqlite-full", "redis"]
                guard !named.isEmpty, named.isSubset(of: known) else {
                    throw OptionError(
                        "--stores takes a list of memory, sqlite (sqlite-normal and sqlite-full), redis, not \(value)"
                    )
                }
                stores = named
            default: throw OptionError("unknown option \(flag)")
            }
        }
        if redisPort == nil, let text = ProcessInfo.processInfo.environment["OTP_BENCH_REDIS_PORT"] {
            redisPort = try Self.whole(text, "OTP_BENCH_REDIS_PORT", in: 1...65535)
        }
    }

    private static func whole(_ text: String, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text), range.contains(number) else {
            let bounds = "\(range.lowerBound) to \(range.upperBound)"
            throw OptionError("\(name) needs a whole number from \(bounds), not \(text)")
        }
        return number
    }
}

/// A bad command line.
struct OptionError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
