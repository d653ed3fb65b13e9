import Foundation
import OTPCore
import OTPServer
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
            #expect(again.status == 422)
            #expect(again.errorCode == "incorrect_code")

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

    @Test("wrong codes count down with attemptsLeft and lock the factor; recovery is locked too")
    func lock() async throws {
        var policy = Policy()
        policy.totpMaxFailures = 3
        try await Harness.with(policy: policy, checkFloor: .zero) { harness in
            let (id, totp, _) = try await Self.enroll(harness)
            let right = try #require(totp.code(at: harness.clock.now))
            let wrong = right == "000000" ? "111111" : "000000"
            for left in [2, 1, 0] {
                let response = try await Self.check(harness, id, wrong)
                #expect(response.status == 422)
                #expect(
                    response.json["error"].flatMap { ($0 as? [String: Any])?["attemptsLeft"] as? Int } == left
                )
            }
            #expect(try await Self.check(harness, id, right).status == 423)
            #expect(
                try await harness.call("POST", "/v1/totp/\(id)/recover", json: #"{"code":"abcde-fghij"}"#)
                    .status
                    == 423)
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
