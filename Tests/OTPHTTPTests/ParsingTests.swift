import Foundation
import OTPServe
import Testing

@testable import OTPHTTP

@Suite struct ConfigurationParsingTests {
    @Test(
        "store arguments",
        arguments: [
            ("memory", StoreSpec.memory),
            ("sqlite:/var/lib/otp.db", .sqlite(path: "/var/lib/otp.db")),
            ("redis://127.0.0.1:6380", .redis(host: "127.0.0.1", port: 6380, database: 0)),
            ("redis://cache.internal/3", .redis(host: "cache.internal", port: 6379, database: 3)),
            ("redis://[::1]:7000/1", .redis(host: "::1", port: 7000, database: 1)),
            (
                "redis://:s%40cret@cache:6380/2",
                .redis(host: "cache", port: 6380, database: 2, password: "s@cret")
            ),
            (
                "redis://otp:pw@10.0.0.5",
                .redis(host: "10.0.0.5", port: 6379, database: 0, username: "otp", password: "pw")
            ),
        ])
    func stores(argument: String, store: StoreSpec) throws {
        #expect(try StoreSpec(argument: argument) == store)
    }

    @Test(
        "malformed store arguments",
        arguments: [
            "", "sqlite:", "redis://", "redis://h:0", "redis://h:x", "redis://h/16", "redis://h/x",
            "mysql://h", "redis://pw@h", "redis://:@h", "redis://user:@h",
        ])
    func badStores(argument: String) {
        #expect(throws: ServerStartError.self) { try StoreSpec(argument: argument) }
    }

    @Test(
        "sender arguments",
        arguments: [
            ("console", SenderSpec.console), ("twilio", .twilio),
            ("outbox:/tmp/o.jsonl", .outbox(path: "/tmp/o.jsonl")),
            ("smtp://mail:25", .smtp(url: "smtp://mail:25")),
            ("smtps://mail", .smtp(url: "smtps://mail")),
            ("smtp+starttls://mail", .smtp(url: "smtp+starttls://mail")),
            ("webhook:https://example.com/h", .webhook(url: "https://example.com/h")),
        ])
    func senders(argument: String, sender: SenderSpec) throws {
        #expect(try SenderSpec(argument: argument) == sender)
    }

    @Test("malformed sender arguments", arguments: ["", "outbox:", "webhook:ftp://x", "sms", "email"])
    func badSenders(argument: String) {
        #expect(throws: ServerStartError.self) { try SenderSpec(argument: argument) }
    }

    @Test("listen addresses")
    func listenAddresses() throws {
        #expect(try ListenAddress.parse("127.0.0.1:9100") == ("127.0.0.1", 9100))
        #expect(try ListenAddress.parse("[::1]:0") == ("::1", 0))
        for bad in ["127.0.0.1", ":9100", "h:99999", "[::1]9100", "h:x"] {
            #expect(throws: ServerStartError.self) { try ListenAddress.parse(bad) }
        }
    }
}
