import Foundation
import OTPCore
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
                "redis://cache:6380/2?prefix=app-a:",
                .redis(host: "cache", port: 6380, database: 2, keyPrefix: "app-a:")
            ),
            (
                "redis://:s%40cret@cache:6380/2",
                .redis(host: "cache", port: 6380, database: 2, password: "s@cret")
            ),
            ("redis://otp@cache", .redis(host: "cache", port: 6379, database: 0, username: "otp")),
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
            "mysql://h", "redis://@h", "redis://:@h", "redis://user:@h", "redis://h?prefix=",
            "redis://h?db=1", "redis://h/1?prefix=a&b=c", "redis://h?prefix=a b",
        ])
    func badStores(argument: String) {
        #expect(throws: ServerStartError.self) { try StoreSpec(argument: argument) }
    }

    @Test(
        "PostgreSQL store arguments: the URL kept for libpq, the schema taken out",
        arguments: [
            ("postgres://otp@db:5433/otp", StoreSpec.postgres(url: "postgres://otp@db:5433/otp")),
            ("postgresql://otp@db/otp", .postgres(url: "postgresql://otp@db/otp")),
            (
                "postgres://otp@db/otp?sslmode=verify-full&schema=otp_a",
                .postgres(url: "postgres://otp@db/otp?sslmode=verify-full", schema: "otp_a")
            ),
            ("postgres://otp:pw@[::1]:5432/otp", .postgres(url: "postgres://otp:pw@[::1]:5432/otp")),
            ("postgres://db/otp?application_name=a", .postgres(url: "postgres://db/otp?application_name=a")),
        ])
    func postgresStores(argument: String, store: StoreSpec) throws {
        #expect(try StoreSpec(argument: argument) == store)
    }

    @Test(
        "malformed PostgreSQL store arguments say what is wrong",
        arguments: [
            ("postgres://", "names its database"), ("postgres://otp@db", "names its database"),
            ("postgres://otp@db/", "names its database"), ("postgres://otp@db:0/otp", "port from 1 to 65535"),
            ("postgres://otp@db:x/otp", "is not HOST:PORT"), ("postgres://@db/otp", "user before @ is empty"),
            ("postgres://otp@db/otp?sslmode=maybe", "sslmode is"),
            ("postgres://otp@db/otp?host=x", "not host"),
            ("postgres://otp@db/otp?sslmode", "NAME=VALUE"),
            ("postgres://otp@db/otp?schema=a-b", "schema is"),
            ("postgres://otp@db/a/b", "not a database name"), ("postgres://otp@/otp", "HOST:PORT"),
        ])
    func badPostgresStores(argument: String, fact: String) {
        do {
            _ = try StoreSpec(argument: argument)
            Issue.record("\(argument) was accepted")
        } catch {
            #expect(error.description.contains(fact), "\(error.description)")
        }
    }

    @Test("a PostgreSQL URL with a password is noticed; one without is not")
    func postgresPassword() throws {
        #expect(try StoreSpec(argument: "postgres://otp:pw@db/otp").holdsPassword)
        #expect(try StoreSpec(argument: "postgres://otp@db/otp?sslmode=require").holdsPassword == false)
        #expect(try StoreSpec(argument: "postgres://db:5432/otp").holdsPassword == false)
        #expect(StoreSpec.memory.holdsPassword == false)
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
            ("sms=twilio", .only(.sms, .twilio)),
            ("email=smtps://mail", .only(.email, .smtp(url: "smtps://mail"))),
            ("sms=outbox:/tmp/o", .only(.sms, .outbox(path: "/tmp/o"))),
        ])
    func senders(argument: String, sender: SenderSpec) throws {
        #expect(try SenderSpec(argument: argument) == sender)
    }

    @Test(
        "malformed sender arguments, and a channel the sender cannot deliver",
        arguments: [
            "", "outbox:", "webhook:ftp://x", "sms", "email", "sms=", "fax=console", "sms=smtp://mail",
            "email=twilio", "sms=sms=twilio",
        ])
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

@Suite struct CheckBodyReadingTests {
    @Test("the common check body is read without a decoder, and agrees with the decoder on every shape")
    func plainAndDecoded() throws {
        let plain: [String: String?] = [
            #"{"code":"482019"}"#: "482019",
            " {\n\t\"code\" :  \"482 019\"\r} ": "482 019",
            #"{"code":"٤٨٢٠١٩"}"#: "٤٨٢٠١٩",
            #"{"code":""}"#: "",
            #"{"code":"48\"2019"}"#: nil,
            #"{"code":"482019","x":1}"#: nil,
            #"{"code":482019}"#: nil,
            #"{"code":"482019"} x"#: nil,
            #"{"code":"482019""#: nil,
            #"{"Code":"482019"}"#: nil,
            "{\"code\":\"48\u{01}2019\"}": nil,
        ]
        for (body, expected) in plain {
            let bytes = Array(body.utf8)
            #expect(RequestBodies.plainCode(bytes) == expected, "\(body)")
            if let expected {
                #expect(RequestBodies.decodedCode(bytes) == expected, "the decoder agrees on \(body)")
            }
        }
        #expect(
            RequestBodies.plainCode([0x7B, 0x22, 0x63, 0x6F, 0x64, 0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
                == nil)
        // Shapes the plain reading leaves to the decoder still work.
        #expect(try RequestBodies.check(Array(#"{"code":"48\u0032019","x":1}"#.utf8)).get() == "482019")
        #expect((try? RequestBodies.check(Array(#"{"code":482019}"#.utf8)).get()) == nil)
    }
}

@Suite struct StartBodyReadingTests {
    @Test("the common start bodies are read without a decoder, and agree with the decoder on every shape")
    func plainAndDecoded() throws {
        typealias Body = RequestBodies.StartBody
        let plain: [String: Body?] = [
            #"{"to":"+12025550100"}"#: Body(to: "+12025550100"),
            " {\n\t\"to\" :  \"+1 202 555 0100\"\r} ": Body(to: "+1 202 555 0100"),
            #"{"to":"ana@example.org","channel":"email","locale":"de-AT"}"#:
                Body(to: "ana@example.org", channel: "email", locale: "de-AT"),
            #"{"channel":"sms","proof":"p.q","to":"+4915550100"}"#:
                Body(to: "+4915550100", channel: "sms", proof: "p.q"),
            #"{"to":"ü@例え.jp"}"#: Body(to: "ü@例え.jp"),
            #"{"to":""}"#: Body(to: ""),
            #"{"to":"+1","to":"+2"}"#: nil,
            #"{"to":"a\"b"}"#: nil,
            #"{"to":"+12025550100","x":"y"}"#: nil,
            #"{"to":"+12025550100","channel":null}"#: nil,
            #"{"to":"+12025550100","hosted":{"returnUrl":"https://a.example"}}"#: nil,
            #"{"to":12025550100}"#: nil,
            #"{"channel":"sms"}"#: nil,
            #"{}"#: nil,
            #"{"to":"+12025550100",}"#: nil,
            #"{"to":"+12025550100"} x"#: nil,
            #"[{"to":"+12025550100"}]"#: nil,
            "{\"to\":\"+1202\u{01}5550100\"}": nil,
        ]
        for (body, expected) in plain {
            let bytes = Array(body.utf8)
            #expect(RequestBodies.plainStart(bytes) == expected, "\(body)")
            if let expected {
                #expect(RequestBodies.decodedStart(bytes) == expected, "the decoder agrees on \(body)")
            }
        }
        #expect(
            RequestBodies.plainStart([0x7B, 0x22, 0x74, 0x6F, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) == nil)
        // Shapes the plain reading leaves to the decoder still work, or fail as before.
        #expect(
            try RequestBodies.start(Array(#"{"to":"+1202555\u0030100","x":1}"#.utf8)).get().to
                == "+12025550100")
        #expect(
            try RequestBodies.start(Array(#"{"to":"+12025550100","channel":null}"#.utf8)).get().channel == nil
        )
        #expect((try? RequestBodies.start(Array(#"{"to":12025550100}"#.utf8)).get()) == nil)
        #expect(
            (try? RequestBodies.start(Array(#"{"to":"+12025550100","channel":"fax"}"#.utf8)).get()) == nil)
    }
}

extension RequestBodies.StartBody {
    init(to: String, channel: String? = nil, proof: String? = nil, locale: String? = nil) {
        self.init(to: to, channel: channel, hosted: nil, proof: proof, locale: locale)
    }
}
