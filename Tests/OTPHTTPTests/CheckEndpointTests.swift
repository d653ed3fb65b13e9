import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct CheckEndpointTests {
    @Test(
        "the right code approves once; the same code again is 409 not_pending with the attempts left",
        arguments: StoreKind.allCases)
    func approves(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            let approved = try await harness.check(id, code)
            #expect(approved.status == 200)
            #expect(approved.json["status"] as? String == "approved")
            #expect(!approved.text.contains(code))
            let again = try await harness.check(id, code)
            #expect(again.status == 409)
            #expect(again.errorCode == "not_pending")
            let left = try #require(approved.json["attemptsLeft"] as? Int)
            #expect(again.errorField("attemptsLeft") as? Int == left)
        }
    }

    @Test(
        "the code is normalised: spaces, dashes, other digits, a doubled code", arguments: StoreKind.allCases)
    func normalised(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            let spaced = "\(code.prefix(3)) - \(code.suffix(3))"
            #expect(try await harness.check(id, spaced).status == 200)
        }
    }

    @Test(
        "a wrong code is 422 incorrect_code with attemptsLeft; the last one locks",
        arguments: StoreKind.allCases)
    func incorrectThenLocked(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let wrong = try harness.code(for: id) == "000000" ? "111111" : "000000"
            let first = try await harness.check(id, wrong)
            #expect(first.status == 422)
            #expect(first.errorCode == "incorrect_code")
            #expect(first.errorField("attemptsLeft") as? Int == 2)
            #expect(first.errorField("message") as? String == "Code doesn't match. 2 attempts left.")
            _ = try await harness.check(id, wrong)
            let last = try await harness.check(id, wrong)
            #expect(last.status == 422)
            #expect(last.errorField("attemptsLeft") as? Int == 0)
            let status = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(status.json["status"] as? String == "locked")
            let locked = try await harness.check(id, try harness.code(for: id))
            #expect(locked.status == 423)
            #expect(locked.errorCode == "locked")
        }
    }

    @Test("a code past its lifetime is 410 expired, even when locked", arguments: StoreKind.allCases)
    func expired(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            harness.clock.advance(seconds: 301)
            let response = try await harness.check(id, code)
            #expect(response.status == 410)
            #expect(response.errorCode == "expired")
            let status = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(status.json["status"] as? String == "expired")
        }
    }

    @Test(
        "a code of the wrong shape is 400 invalid_code_format and costs no attempt",
        arguments: StoreKind.allCases)
    func invalidFormat(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            for bad in ["12", "abcdef", "1234567"] {
                let response = try await harness.check(id, bad)
                #expect(response.status == 400)
                #expect(response.errorCode == "invalid_code_format")
            }
            let status = try await harness.call("GET", "/v1/verifications/\(id)")
            #expect(status.json["attemptsLeft"] as? Int == 3)
        }
    }

    @Test(
        "an unknown verification is 404 not_found, before the body is judged", arguments: StoreKind.allCases)
    func notFound(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let missing = "vf_AAAAAAAAAAAAAAAAAAAAAA"
            let response = try await harness.check(missing, "123456")
            #expect(response.status == 404)
            #expect(response.errorCode == "not_found")
            let badBody = try await harness.call("POST", "/v1/verifications/\(missing)/check", json: "nope")
            #expect(badBody.status == 404)
        }
    }

    @Test(
        "a body that is not JSON with a string code is 400 invalid_request",
        arguments: [
            "", "nope", #"{"code":123456}"#, #"{"cod":"123456"}"#,
        ])
    func malformedBody(body: String) async throws {
        try await Harness.with { harness in
            let id = try await harness.start()
            let response = try await harness.call("POST", "/v1/verifications/\(id)/check", json: body)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_request")
            // The verification exists, so the error carries its attempts left, none taken.
            #expect(response.errorField("attemptsLeft") as? Int == 3)
        }
    }

    @Test("a code of any length is judged in order: 404 on no verification, else 400 invalid_code_format")
    func longCode() async throws {
        try await Harness.with { harness in
            let id = try await harness.start()
            for length in [7, 300, 15_000] {
                let long = String(repeating: "1", count: length)
                let response = try await harness.check(id, long)
                #expect(response.status == 400, "\(length)")
                #expect(response.errorCode == "invalid_code_format", "\(length)")
                // No attempt is taken.
                #expect(response.errorField("attemptsLeft") as? Int == 3, "\(length)")
                let missing = try await harness.check("vf_AAAAAAAAAAAAAAAAAAAAAA", long)
                #expect(missing.errorCode == "not_found", "\(length)")
            }
            // The verification is still open to the right code.
            let approved = try await harness.check(id, try harness.code(for: id))
            #expect(approved.status == 200)
        }
    }

    @Test(
        "too many checks from one address is 429 rate_limited with Retry-After", arguments: StoreKind.allCases
    )
    func rateLimited(store: StoreKind) async throws {
        let policy = Policy(checksPerAddress: RateLimit(limit: 2, window: .seconds(300)))
        try await Harness.with(store: store, policy: policy) { harness in
            let id = try await harness.start()
            _ = try await harness.check(id, "000001")
            _ = try await harness.check(id, "000002")
            let response = try await harness.check(id, try harness.code(for: id))
            #expect(response.status == 429)
            #expect(response.errorCode == "rate_limited")
            #expect(response.headers["retry-after"] != nil)
        }
    }

    @Test("parallel checks through HTTP judge at most attemptsLeft codes", arguments: StoreKind.allCases)
    func parallelChecks(store: StoreKind) async throws {
        try await Harness.with(store: store) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            let wrong = code == "000000" ? "111111" : "000000"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await harness.check(id, wrong).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 422 }.count == 3)
            #expect(statuses.filter { $0 == 423 }.count == 9)
        }
    }

    @Test(
        "every check answer, right, wrong, unknown id or malformed, waits out the check floor",
        arguments: StoreKind.allCases)
    func checkFloor(store: StoreKind) async throws {
        let floor = Duration.milliseconds(300)
        try await Harness.with(store: store, checkFloor: floor) { harness in
            let id = try await harness.start()
            let code = try harness.code(for: id)
            let wrong = code == "000000" ? "111111" : "000000"
            let cases: [(id: String, code: String, status: Int)] = [
                // The second wrong code takes the path of a verification seen before: on SQLite and
                // Redis, answered from the store's own thread.
                (id, wrong, 422), (id, wrong, 422), ("vf_\(String(repeating: "A", count: 22))", code, 404),
                (id, "12", 400), (id, code, 200),
            ]
            for (target, guess, status) in cases {
                let clock = ContinuousClock()
                let began = clock.now
                let response = try await harness.check(target, guess)
                let waited = clock.now - began
                #expect(response.status == status)
                #expect(waited >= floor, "a \(status) answer came after \(waited), before the \(floor) floor")
            }
        }
    }
}
