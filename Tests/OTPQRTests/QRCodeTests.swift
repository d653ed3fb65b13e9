import Foundation
import OTPEngine
import OTPQR
import OTPTestSupport
import Testing

@Suite struct QRCodeTests {
    /// The text zbarimg (Debian's zbar-tools) reads from a PGM image of a code.
    func decoded(_ code: QRCode) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "otp-qr-\(UUID().uuidString).pgm")
        try Data(code.pgm()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try await runToEnd("/usr/bin/env", ["zbarimg", "--quiet", "--raw", file.path])
        return output.trimmingCharacters(in: .newlines)
    }

    @Test("an otpauth URI's QR code decodes back to the same URI (zbarimg)")
    func roundTrip() async throws {
        let uri = TOTP(secret: Array("12345678901234567890".utf8)).provisioningURI(
            account: "alice@example.org", issuer: "Example")
        let code = try #require(QRCode(uri))
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0, "a QR version's side is 17 + 4v")
        #expect(try await decoded(code) == uri)
    }

    @Test("the SVG and terminal renderings draw every dark module, inside a quiet zone")
    func renderings() throws {
        let code = try #require(QRCode("otpauth://totp/Example:a?secret=GEZDGNBV"))
        let dark = code.modules.joined().filter { $0 }.count
        #expect(code.svg().components(separatedBy: "h1v1h-1z").count - 1 == dark)
        #expect(code.svg().hasPrefix("<svg "))
        let lines = code.terminalLines()
        #expect(lines.count == (code.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        #expect(lines.first?.allSatisfy { $0 == "█" } == true, "the quiet zone is light")
    }

    @Test("text too long for any QR version is refused")
    func tooLong() {
        #expect(QRCode(String(repeating: "x", count: 5000)) == nil)
    }
}
