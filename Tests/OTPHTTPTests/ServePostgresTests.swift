import Foundation
import OTPEngine
import OTPTestSupport
import Testing

/// `otp serve` on a PostgreSQL store, as an operator runs it: the binary, a URL, HTTP.
@Suite struct ServePostgresTests {
    @Test("otp serve on PostgreSQL: a start, a wrong code, then the right one, over HTTP; it stops cleanly")
    func serveOnPostgres() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = directory.appendingPathComponent("outbox.jsonl").path
        let store = try TestPostgres.url() + "?schema=" + TestPostgres.freshSchema()
        let serve = try ServeProcess([
            "serve", "--port", "0", "--api-key", "pg-key-0123456789abcdefghijklmn", "--store", store,
            "--store-connections", "2",
            "--secret-file", directory.appendingPathComponent("secret").path, "--sender", "outbox:\(outbox)",
        ])
        let started = try await ServeCommandTests.start(on: serve, key: "pg-key-0123456789abcdefghijklmn")
        let port = try #require(serve.port)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        let body = try #require(try OutboxSender.entries(path: outbox).last { $0.verificationId == id }?.body)
        let range = try #require(body.range(of: "code is "))
        let code = String(body[range.upperBound...].prefix { $0.isNumber })
        let wrong = String(code.map { $0 == "9" ? "0" : Character(String(($0.wholeNumberValue ?? 0) + 1)) })

        func check(_ candidate: String) async throws -> RawResponse {
            try await RawHTTP.request(
                port: port, method: "POST", path: "/v1/verifications/\(id)/check",
                headers: [("Authorization", "Bearer pg-key-0123456789abcdefghijklmn")],
                body: #"{"code":"\#(candidate)"}"#)
        }
        let refused = try await check(wrong)
        #expect(refused.status == 422)
        #expect(refused.errorField("attemptsLeft") as? Int == Policy.default.maxAttempts - 1)
        let approved = try await check(code)
        #expect(approved.status == 200)
        #expect(approved.json["status"] as? String == "approved")
        let again = try await check(code)
        #expect(again.status == 409)

        let (status, stdout, stderr) = await serve.stop()
        #expect(status == 0)
        #expect(stdout.isEmpty)
        #expect(!stderr.contains("store URL holds a password"))
        #expect(stderr.contains(#""route":"/v1/verifications/{id}/check","status":200"#), "\(stderr)")
    }

    @Test("otp serve exits 1 when PostgreSQL cannot be reached, after warning of the password in the URL")
    func unreachable() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let closed = try ClosedPort()
        let serve = try ServeProcess([
            "serve", "--port", "0", "--api-key", "k-0123456789abcdefghijklmn", "--sender", "outbox:/dev/null",
            "--store", "postgres://otp:hunter2@127.0.0.1:\(closed.port)/otp",
            "--secret-file", directory.appendingPathComponent("secret").path,
        ])
        let (status, stdout, stderr) = await serve.finish()
        #expect(status == 1)
        #expect(stdout.isEmpty)
        #expect(stderr.contains("the store URL holds a password"))
        #expect(stderr.contains("cannot open the PostgreSQL store"), "\(stderr)")
        #expect(!stderr.contains("hunter2"))
    }
}
