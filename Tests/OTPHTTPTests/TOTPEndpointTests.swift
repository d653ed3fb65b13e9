import Foundation
import OTPCore
import OTPEngine
import Testing

/// Authenticator factors black-box through HTTP, on every store.
@Suite struct TOTPEndpointTests {
    static func enroll(_ harness: Harness) async throws -> (id: String, totp: TOTP, body: [String: Any]) {
        let response = try await harness.call(
            "POST", "/v1/totp", json: #"{"account":"alice@example.org","issuer":"Example"}"#)
        #expect(response.status == 201)
        let id = try #require(response.json["id"] as? String)
        let uri = try #require(response.json["otpauthUri"] as? String)
        let query = try #require(URLComponents(string: uri)?.queryItems)
        let secretText = try #require(query.first { $0.name == "secret" }?.value)
        let secret = try #require(Base32.decode(secretText))
        return (id, TOTP(secret: secret), response.json)
    }

    static func check(_ harness: Harness, _ id: String, _ code: String) async throws -> RawResponse {
        try await harness.call("POST", "/v1/totp/\(id)/check", json: #"{"code":"\#(code)"}"#)
    }

    @Test(
        "enrol, confirm with recovery codes, replay refused, recover once, new codes, delete",
        arguments: StoreKind.allCases)
    func lifecycle(kind: StoreKind) async throws {
        try await Harness.with(store: kind, checkFloor: .zero) { harness in
            let (id, totp, enrolled) = try await Self.enroll(harness)
            #expect(enrolled["status"] as? String == "unconfirmed")
            #expect(enrolled["account"] as? String == "alice@example.org")
            #expect((enrolled["qrSvg"] as? String)?.hasPrefix("<svg") == true)
            #expect(enrolled["recoveryCodes"] == nil)
            let code = try #require(totp.code(at: harness.clock.now))

            let confirmed = try await Self.check(harness, id, code)
            #expect(confirmed.status == 200)
            #expect(confirmed.json["status"] as? String == "active")
            let codes = try #require(confirmed.json["recoveryCodes"] as? [String])
            try #require(codes.count == 10)
            #expect(confirmed.headers["cache-control"] == "no-store")

            let replay = try await Self.check(harness, id, code)
            #expect(replay.status == 409)
            #expect(replay.errorCode == "code_already_used")

            harness.clock.advance(seconds: 30)
            let next = try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now)))
            #expect(next.status == 200)
            #expect(next.json["recoveryCodes"] == nil)

            let recovered = try await harness.call(
                "POST", "/v1/totp/\(id)/recover", json: #"{"code":"\#(codes[0].uppercased())"}"#)
            #expect(recovered.status == 200)
            #expect(recovered.json["recoveryCodesLeft"] as? Int == 9)
            let again = try await harness.call(
                "POST", "/v1/totp/\(id)/recover", json: #"{"code":"\#(codes[0])"}"#)
            #expect(again.status == 409, "a used recovery code replayed is told apart from a guess")
            #expect(again.errorCode == "code_already_used")
            let view = try await Self.check(harness, id, "000000")
            #expect(
                view.json["error"].flatMap { ($0 as? [String: Any])?["attemptsLeft"] as? Int } == 9,
                "the replay counted no failure (10 allowed, this wrong code is the first)")

            let replaced = try await harness.call("POST", "/v1/totp/\(id)/recovery-codes")
            #expect(replaced.status == 200)
            let fresh = try #require(replaced.json["recoveryCodes"] as? [String])
            #expect(Set(fresh).isDisjoint(with: codes))
            #expect(
                try await harness.call("POST", "/v1/totp/\(id)/recover", json: #"{"code":"\#(codes[1])"}"#)
                    .status
                    == 422)

            #expect(try await harness.call("DELETE", "/v1/totp/\(id)").status == 204)
            #expect(try await harness.call("DELETE", "/v1/totp/\(id)").status == 404)
            #expect(try await Self.check(harness, id, code).status == 404)
        }
    }

    @Test(
        "fifty parallel checks of one right code: exactly one is accepted, the rest are code_already_used",
        arguments: StoreKind.allCases)
    func replayRace(kind: StoreKind) async throws {
        let policy = Policy(checksPerAddress: RateLimit(limit: 1000, window: .seconds(60)))
        try await Harness.with(store: kind, policy: policy, checkFloor: .zero) { harness in
            let (id, totp, _) = try await Self.enroll(harness)
            let code = try #require(totp.code(at: harness.clock.now))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await Self.check(harness, id, code).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 409 }.count == 49)
        }
    }

    @Test(
        "wrong codes count down and lock the factor for 15 minutes; a recovery code opens it; new codes can be had"
    )
    func lock() async throws {
        var policy = Policy()
        policy.totpMaxFailures = 3
        try await Harness.with(policy: policy, checkFloor: .zero) { harness in
            let (id, totp, _) = try await Self.enroll(harness)
            let confirmed = try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now)))
            let codes = try #require(confirmed.json["recoveryCodes"] as? [String])
            harness.clock.advance(seconds: 30)
            let right = try #require(totp.code(at: harness.clock.now))
            let wrong = right == "000000" ? "111111" : "000000"
            for left in [2, 1, 0] {
                let response = try await Self.check(harness, id, wrong)
                #expect(response.status == 422)
                #expect(
                    response.json["error"].flatMap { ($0 as? [String: Any])?["attemptsLeft"] as? Int } == left
                )
            }
            let locked = try await Self.check(harness, id, right)
            #expect(locked.status == 423)
            #expect(
                locked.errorField("message") as? String == "Too many attempts. Sign in with a recovery code.")
            // New recovery codes can be had while locked; the old ones then stop working.
            let renewed = try await harness.call("POST", "/v1/totp/\(id)/recovery-codes")
            #expect(renewed.status == 200)
            let fresh = try #require(renewed.json["recoveryCodes"] as? [String])
            let old = try await harness.call(
                "POST", "/v1/totp/\(id)/recover", json: #"{"code":"\#(codes[0])"}"#)
            // On the locked factor a code that is not its own is 423 and counts nothing.
            #expect(old.status == 423)
            #expect(old.errorCode == "locked")
            let opened = try await harness.call(
                "POST", "/v1/totp/\(id)/recover", json: #"{"code":"\#(fresh[0])"}"#)
            #expect(opened.status == 200, "a recovery code opens a locked factor")
            #expect(opened.json["attemptsLeft"] as? Int == 3)
            harness.clock.advance(seconds: 30)
            #expect(
                try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now))).status
                    == 200)
        }
    }

    @Test("a lock lifts by itself after 15 minutes; the next lasts 30")
    func lockLifts() async throws {
        var policy = Policy()
        policy.totpMaxFailures = 2
        try await Harness.with(policy: policy, checkFloor: .zero) { harness in
            let (id, totp, _) = try await Self.enroll(harness)
            _ = try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now)))
            func lockOut() async throws {
                for _ in 0..<2 {
                    harness.clock.advance(seconds: 30)
                    let right = try #require(totp.code(at: harness.clock.now))
                    _ = try await Self.check(harness, id, right == "000000" ? "111111" : "000000")
                }
            }
            try await lockOut()
            harness.clock.advance(seconds: 899)
            #expect(
                try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now))).status
                    == 423)
            harness.clock.advance(seconds: 31)
            try await lockOut()
            harness.clock.advance(seconds: 1800 - 31)
            #expect(
                try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now))).status
                    == 423,
                "the second lock lasts 30 minutes")
            harness.clock.advance(seconds: 61)
            #expect(
                try await Self.check(harness, id, try #require(totp.code(at: harness.clock.now))).status
                    == 200)
        }
    }

    @Test(
        "recovery and new recovery codes refuse a factor that is not confirmed; an unknown one is not found")
    func unconfirmed() async throws {
        try await Harness.with(checkFloor: .zero) { harness in
            let (id, _, _) = try await Self.enroll(harness)
            let recover = try await harness.call(
                "POST", "/v1/totp/\(id)/recover", json: #"{"code":"abcde-fghij"}"#)
            #expect(recover.status == 409)
            #expect(recover.errorCode == "not_pending")
            let renew = try await harness.call("POST", "/v1/totp/\(id)/recovery-codes")
            #expect(renew.status == 409)
            let unknown = try await Self.check(harness, "tf_" + String(repeating: "A", count: 22), "123456")
            #expect(unknown.status == 404)
            #expect(unknown.errorField("message") as? String == "This authenticator was not found.")
        }
    }

    @Test("bad bodies and names are 400, unknown factors 404, and publishable keys 403")
    func refusals() async throws {
        try await Harness.with(
            checkFloor: .zero, publishableKeys: ["app": "pk_test_totp_0123456789abcdefghij"]
        ) { harness in
            for body in [
                "{}", #"{"account":"a"}"#, #"{"account":"","issuer":"E"}"#,
                #"{"account":"a","issuer":"E:x"}"#,
                "not json",
            ] {
                #expect(try await harness.call("POST", "/v1/totp", json: body).status == 400, "\(body)")
            }
            let (id, _, _) = try await Self.enroll(harness)
            #expect(try await Self.check(harness, id, "12").status == 400)
            #expect(try await harness.call("POST", "/v1/totp/\(id)/check", json: "{}").status == 400)
            #expect(try await Self.check(harness, "tf_unknownunknownunknown", "123456").status == 404)
            #expect(try await harness.call("POST", "/v1/totp/tf_x/recovery-codes").status == 404)
            #expect(try await harness.call("GET", "/v1/totp/\(id)").status == 405)
            let publishable = try await harness.call(
                "POST", "/v1/totp", json: #"{"account":"a","issuer":"E"}"#,
                key: "pk_test_totp_0123456789abcdefghij")
            #expect(publishable.status == 403)
            #expect(publishable.errorCode == "forbidden")
        }
    }
}
