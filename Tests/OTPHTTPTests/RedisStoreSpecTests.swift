import Foundation
import OTPServe
import Testing

@testable import OTPHTTP

/// `redis-sentinel://` as `--store` takes it: the sentinels, the primary's name, the database.
@Suite struct RedisStoreSpecTests {
    /// The parts of a Sentinel spec, as text, to compare.
    static func parts(_ argument: String) throws -> [String] {
        guard case .redisSentinel(let spec) = try StoreSpec(argument: argument) else {
            return ["not Sentinel"]
        }
        return spec.sentinels.map(\.description) + [
            spec.primaryName, String(spec.database), spec.username ?? "-", spec.password ?? "-",
            spec.keyPrefix,
        ]
    }

    @Test(
        "Sentinel store arguments",
        arguments: [
            (
                "redis-sentinel://h1:26379,h2:26380/otp/0",
                ["h1:26379", "h2:26380", "otp", "0", "-", "-", "otp:"]
            ),
            ("redis-sentinel://s1/mymaster", ["s1:26379", "mymaster", "0", "-", "-", "otp:"]),
            (
                "redis-sentinel://:s%40cret@[::1]:5000,h2/primary-1/3?prefix=app:",
                ["[::1]:5000", "h2:26379", "primary-1", "3", "-", "s@cret", "app:"]
            ),
            ("redis-sentinel://app@s1/otp", ["s1:26379", "otp", "0", "app", "-", "otp:"]),
            (
                "redis-sentinel://otp:pw@10.0.0.5/otp.main/15",
                ["10.0.0.5:26379", "otp.main", "15", "otp", "pw", "otp:"]
            ),
        ])
    func sentinels(argument: String, expected: [String]) throws {
        #expect(try Self.parts(argument) == expected)
    }

    @Test(
        "malformed Sentinel store arguments are refused with what is wrong",
        arguments: [
            ("redis-sentinel://h1:26379", "the primary's name is missing"),
            (
                "redis-sentinel://h1//0",
                "the Sentinel primary's name is letters, digits, - _ or ., then /DB at most"
            ),
            ("redis-sentinel://h1/otp/0/1", "then /DB at most, not otp/0/1"),
            ("redis-sentinel://h1/ot p", "not ot p"),
            ("redis-sentinel://h1/otp/16", "the Redis database must be a number from 0 to 15, not 16"),
            ("redis-sentinel://h1/otp/x", "the Redis database must be a number from 0 to 15, not x"),
            ("redis-sentinel://h1,,h2/otp", "a Sentinel store lists an empty sentinel address"),
            ("redis-sentinel:///otp", "a Sentinel store lists an empty sentinel address"),
            ("redis-sentinel://h1:0/otp", "h1:0 is not HOST:PORT with a port from 1 to 65535"),
            ("redis-sentinel://h1:x/otp", "h1:x is not HOST:PORT"),
            ("redis-sentinel://h1/otp?db=1", "the only Redis store option is ?prefix=PREFIX, not ?db=1"),
            (
                "redis-sentinel://@h1/otp",
                "Redis credentials are USER@HOST, :PASSWORD@HOST or USER:PASSWORD@HOST"
            ),
            ("redis-sentinel://user:@h1/otp", "the Redis password after the colon is empty"),
        ])
    func badSentinels(argument: String, reason: String) {
        do {
            _ = try StoreSpec(argument: argument)
            Issue.record("\(argument) was taken")
        } catch {
            #expect(error.description.contains(reason), "\(error.description)")
        }
    }

    @Test("a Sentinel spec's argument names it again, its password left out")
    func argumentRoundTrip() throws {
        let spec = try StoreSpec(argument: "redis-sentinel://:pw@h1:1,[::1]:2/otp/4?prefix=a:")
        #expect(spec.hasPassword)
        #expect(spec.argument == "redis-sentinel://h1:1,[::1]:2/otp/4?prefix=a:")
        #expect(try StoreSpec(argument: spec.argument).password("pw") == spec)
        #expect(!(try StoreSpec(argument: spec.argument)).hasPassword)
        #expect(StoreSpec.memory.password("pw") == .memory)
    }
}
