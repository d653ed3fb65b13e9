import Foundation
import OTPEngine
import Testing

/// `otp totp` against a server in this process, as a user runs it.
@Suite struct TOTPCommandTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await ServeProcess(["totp"] + arguments).finish()
    }

    @Test("enroll prints a QR code in half blocks, the URI and the factor; check and delete work by id")
    func enrollAndCheck() async throws {
        try await Harness.with(checkFloor: .zero) { harness in
            let connection = ["--server", "http://127.0.0.1:\(harness.port)", "--api-key", harness.key]
            let enrolled = try await Self.run(
                ["enroll", "--account", "alice@example.org", "--issuer", "Example"] + connection)
            #expect(enrolled.status == 0, "\(enrolled.stderr)")
            #expect(enrolled.stdout.contains("▀") || enrolled.stdout.contains("▄"))
            let uriLine = try #require(
                enrolled.stdout.split(separator: "\n").first { $0.hasPrefix("otpauth://") })
            #expect(uriLine.hasPrefix("otpauth://totp/Example:alice@example.org?secret="))
            let json = try #require(
                enrolled.stdout.range(of: "{").map { String(enrolled.stdout[$0.lowerBound...]) })
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let id = try #require(object["id"] as? String)
            #expect(object["status"] as? String == "unconfirmed")

            let secretText = try #require(
                URLComponents(string: String(uriLine))?.queryItems?.first { $0.name == "secret" }?.value)
            let secret = try #require(Base32.decode(secretText))
            let code = try #require(TOTP(secret: secret).code(at: harness.clock.now))
            let checked = try await Self.run(["check", id, code] + connection)
            #expect(checked.status == 0, "\(checked.stderr)")
            #expect(checked.stdout.contains("\"recoveryCodes\""))
            let replay = try await Self.run(["check", id, code] + connection)
            #expect(replay.status == 1)
            #expect(replay.stderr.contains("code_already_used"))
            #expect(try await Self.run(["delete", id] + connection).status == 0)
        }
    }

    @Test("usage errors exit 2 with one line: no subcommand, an unknown one, missing names or arguments")
    func usage() async throws {
        for arguments in [[], ["frob"], ["enroll", "--api-key", "k"], ["check", "tf_x", "--api-key", "k"]] {
            let result = try await Self.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("otp totp: "), "\(arguments)")
        }
        #expect(try await Self.run(["--help"]).status == 0)
    }
}
