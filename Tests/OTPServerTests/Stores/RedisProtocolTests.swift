import Foundation
import OTPServer
import Testing

@testable import OTPRedis

/// Commands written in the Redis protocol's own form, and a wrong code's short reply read back.
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

    @Test("a wrong code's short reply gives the attempts left and the lease; a token may hold colons")
    func shortReply() throws {
        let plain = try #require(try RedisStore.shortIncorrect(Self.reply(["incorrect", "held", "4::"])))
        #expect(plain.attemptsLeft == 4)
        #expect(plain.lease == nil)
        let leased = try #require(
            try RedisStore.shortIncorrect(Self.reply(["incorrect", "held", "0:1796177454913:tok:en"])))
        #expect(leased.attemptsLeft == 0)
        #expect(
            leased.lease
                == ResendLease(token: "tok:en", until: StoreTime.date(milliseconds: 1_796_177_454_913)))
    }

    @Test("replies that are not a short wrong-code reply read nil; a malformed one is an error")
    func otherReplies() throws {
        #expect(try RedisStore.shortIncorrect(Self.reply(["incorrect", "", "id", "vf_1"])) == nil)
        #expect(try RedisStore.shortIncorrect(Self.reply(["approved", "held", "4::"])) == nil)
        #expect(try RedisStore.shortIncorrect(.array([])) == nil)
        #expect(try RedisStore.shortIncorrect(.error("NOSCRIPT")) == nil)
        for packed in ["", "4", "4:", "x::", ":1:t"] {
            #expect(throws: StoreError.self, "\(packed)") {
                _ = try RedisStore.shortIncorrect(Self.reply(["incorrect", "held", packed]))
            }
        }
        #expect(throws: StoreError.self) {
            _ = try RedisStore.shortIncorrect(
                .array([.string(Array("incorrect".utf8)), .string(Array("held".utf8)), .integer(4)]))
        }
    }
}
