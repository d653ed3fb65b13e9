import Foundation
import OTPEngine
import Testing

@testable import OTPRedis

/// Commands written in the Redis protocol's own form, and the scripts' small replies read back.
@Suite struct RedisProtocolTests {
    private static func command(_ build: (inout RedisArguments) -> Void) -> [UInt8] {
        var arguments = RedisArguments(capacity: 4)
        build(&arguments)
        return arguments.withCommand { bytes, count in
            Array(UnsafeRawBufferPointer(start: bytes, count: count))
        }
    }

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("arguments become bulk strings under a count: texts, joined texts, bytes, numbers and nothing")
    func layout() {
        #expect(
            Self.command {
                $0.append("EVALSHA")
                $0.appendJoined("otp:", "v:", "vf_1")
                $0.append([0x00, 0xFF])
                $0.append([])
            } == Self.bytes("*4\r\n$7\r\nEVALSHA\r\n$10\r\notp:v:vf_1\r\n$2\r\n") + [0x00, 0xFF]
                + Self.bytes("\r\n$0\r\n\r\n"))
        #expect(Self.command { _ in } == Self.bytes("*0\r\n"))
        let numbers: [(Int64, String)] = [
            (0, "0"), (7, "7"), (10, "10"), (-12, "-12"), (1_796_177_454_913, "1796177454913"),
            (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
        ]
        for (number, text) in numbers {
            #expect(
                Self.command { $0.append(number) } == Self.bytes("*1\r\n$\(text.utf8.count)\r\n\(text)\r\n"))
        }
        // Twelve arguments and a body over ten bytes: counts of more than one digit.
        let long = String(repeating: "x", count: 1234)
        #expect(
            Self.command { arguments in for _ in 0..<12 { arguments.append(long) } }
                == Self.bytes("*12\r\n" + String(repeating: "$1234\r\n\(long)\r\n", count: 12)))
    }

    @Test("a run's tail follows the script's hash: EVALSHA, the hash, numkeys, keys, arguments")
    func evaluationTail() {
        let script = RedisScript("return 1")
        let evaluation = RedisConnection.Evaluation(
            script: script, keys: ["k1", "k2"], arguments: [Array("a".utf8)])
        var head = RedisArguments(capacity: 2)
        head.append("EVALSHA")
        head.append(Array("abc".utf8))
        #expect(
            evaluation.tail.withCommand(after: head) {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: $1), as: UTF8.self)
            }
                == "*6\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n2\r\n$2\r\nk1\r\n$2\r\nk2\r\n$1\r\na\r\n")
    }

    private static func reply(_ parts: [String]) -> RedisValue {
        .array(parts.map { .string(Array($0.utf8)) })
    }

    private static let permits = [
        RatePermit(key: "ca:one", limit: RateLimit(limit: 5, window: .seconds(60))),
        RatePermit(key: "fd:two", limit: RateLimit(limit: 2, window: .seconds(3600))),
    ]

    private static let step = CheckStep(
        id: "vf_1", candidateHash: [1, 2], permits: permits, refundsOnApproval: [])

    @Test("a check's small replies read as their answers; a permit is named by its index from 1")
    func checkReplies() throws {
        #expect(
            try RedisStore.checkAnswer(Self.reply(["incorrect", "4"]), step: Self.step)
                == .incorrect(attemptsLeft: 4))
        #expect(
            try RedisStore.checkAnswer(Self.reply(["expired", "0"]), step: Self.step)
                == .expired(attemptsLeft: 0))
        #expect(try RedisStore.checkAnswer(Self.reply(["locked", ""]), step: Self.step) == .locked)
        #expect(
            try RedisStore.checkAnswer(Self.reply(["notPending", "2"]), step: Self.step)
                == .notPending(attemptsLeft: 2))
        #expect(throws: StoreError.self) {
            try RedisStore.checkAnswer(Self.reply(["notPending", ""]), step: Self.step)
        }
        #expect(try RedisStore.checkAnswer(Self.reply(["notFound", ""]), step: Self.step) == .notFound)
        #expect(
            try RedisStore.checkAnswer(Self.reply(["rateLimited", "1500:2:3"]), step: Self.step)
                == .rateLimited(waitMilliseconds: 1500, key: "fd:two", attemptsLeft: 3))
    }

    @Test(
        "a start's refusal names its permit; a malformed or unknown reply is a store error, never an answer")
    func malformedReplies() throws {
        #expect(
            try RedisStore.startAnswer(Self.reply(["denied", "60000:1"]), permits: Self.permits)
                == .denied(waitMilliseconds: 60000, key: "ca:one"))
        #expect(try RedisStore.startAnswer(Self.reply(["inserted", ""]), permits: Self.permits) == .inserted)
        for wait in ["", "60000", "60000:0", "60000:3", "x:1", "60000:1:2:3"] {
            #expect(throws: StoreError.self, "denied \(wait)") {
                _ = try RedisStore.startAnswer(Self.reply(["denied", wait]), permits: Self.permits)
            }
        }
        #expect(throws: StoreError.self) {
            _ = try RedisStore.startAnswer(Self.reply(["replay", "", "vid", "vf_1"]), permits: Self.permits)
        }
        for (outcome, extra) in [
            ("incorrect", ""), ("incorrect", "x"), ("expired", ""), ("rateLimited", "1500:2"),
            ("rateLimited", "1500:9:1"), ("rateLimited", "1500:2:x"), ("approved", ""), ("maybe", ""),
        ] {
            #expect(throws: StoreError.self, "\(outcome) \(extra)") {
                _ = try RedisStore.checkAnswer(Self.reply([outcome, extra]), step: Self.step)
            }
        }
        #expect(throws: StoreError.self) { _ = try RedisStore.checkAnswer(.array([]), step: Self.step) }
        #expect(throws: StoreError.self) {
            _ = try RedisStore.checkAnswer(.error("NOSCRIPT"), step: Self.step)
        }
    }
}
