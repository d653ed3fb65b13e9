import Foundation
import OTPCore
import OTPEngine
import OTPHTTP
import Testing

@Suite struct LimitsAndAuthTests {
    @Test(
        "every /v1/ path, known or not, needs a valid key first: 401 unauthorized",
        arguments: [
            ("POST", "/v1/verifications"), ("GET", "/v1/verifications/vf_x"),
            ("POST", "/v1/verifications/x/check"),
            ("DELETE", "/v1/verifications"), ("GET", "/v1/nothing-here"), ("GET", "/v1"),
        ])
    func unauthorized(method: String, path: String) async throws {
        try await Harness.with { harness in
            for key in [String?.none, "wrong-key", "", "key-\(UUID().uuidString)"] {
                let response = try await harness.call(method, path, json: "{}", key: .some(key))
                #expect(response.status == 401)
                #expect(response.errorCode == "unauthorized")
            }
            let basic = try await harness.call(
                method, path, json: "{}", key: .some(nil),
                headers: [("Authorization", "Basic \(harness.key)")])
            #expect(basic.status == 401)
        }
    }

    @Test("any configured key is accepted, and the scheme is case-insensitive")
    func anyKey() async throws {
        try await Harness.with { harness in
            #expect(
                try await harness.call("GET", "/v1/verifications/vf_AAAAAAAAAAAAAAAAAAAAAA", key: "other-key")
                    .status == 404)
            let lower = try await harness.call(
                "GET", "/v1/verifications/vf_AAAAAAAAAAAAAAAAAAAAAA", key: .some(nil),
                headers: [("Authorization", "bearer \(harness.key)")])
            #expect(lower.status == 404)
        }
    }

    @Test("an unknown route is 404 not_found; a known one with the wrong method is 405 with Allow")
    func routes() async throws {
        try await Harness.with { harness in
            let unknown = try await harness.call("GET", "/v1/verifications/x/y/z")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "not_found")
            #expect(try await harness.call("GET", "/nothing", key: .some(nil)).status == 404)
            #expect(try await harness.call("POST", "/v1/verifications/vf_x/explode").status == 404)
            // `/v1/verifications` takes a start's POST and a search's GET.
            let wrong = try await harness.call("DELETE", "/v1/verifications")
            #expect(wrong.status == 405)
            #expect(wrong.errorCode == "method_not_allowed")
            #expect(wrong.headers["allow"] == "POST, GET, HEAD")
            let put = try await harness.call("PUT", "/v1/verifications/vf_x")
            #expect(put.status == 405)
            #expect(put.headers["allow"] == "GET, HEAD")
            #expect(try await harness.call("POST", "/healthz", key: .some(nil)).status == 405)
        }
    }

    @Test("a body over 16 KiB is 413 payload_too_large, declared or chunked")
    func payloadTooLarge() async throws {
        try await Harness.with { harness in
            let big = "{\"to\":\"\(String(repeating: "1", count: 17 * 1024))\"}"
            let declared = try await harness.call("POST", "/v1/verifications", json: big)
            #expect(declared.status == 413)
            #expect(declared.errorCode == "payload_too_large")
            var chunked =
                "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(harness.key)\r\n"
            chunked += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for _ in 0..<20 { chunked += "400\r\n\(String(repeating: "a", count: 1024))\r\n" }
            chunked += "0\r\n\r\n"
            let response = try await RawHTTP.send(port: harness.port, Array(chunked.utf8))
            #expect(response.status == 413)
            let atLimit = "{\"to\":\"+12015550100\"\(String(repeating: " ", count: 16 * 1024 - 21))}"
            #expect(atLimit.utf8.count == 16 * 1024)
            #expect(try await harness.call("POST", "/v1/verifications", json: atLimit).status == 201)
        }
    }

    @Test("an oversized body without a key is still 401: the key is judged first")
    func keyBeforeSize() async throws {
        try await Harness.with { harness in
            let big = String(repeating: "x", count: 20 * 1024)
            let response = try await harness.call("POST", "/v1/verifications", json: big, key: .some(nil))
            #expect(response.status == 401)
        }
    }

    @Test("a connection that stalls mid-request is dropped after the connection timeout")
    func stalledConnection() async throws {
        try await Harness.with(connectionTimeout: .seconds(1)) { harness in
            let half = Array(
                "POST /v1/verifications HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{".utf8)
            let (seconds, _) = try await RawHTTP.sendAndWaitForClose(port: harness.port, half)
            #expect(seconds < 5)
            let idle = try await RawHTTP.sendAndWaitForClose(port: harness.port, [])
            #expect(idle.seconds < 5)
        }
    }
}
