import Foundation
import OTPHTTP
import OTPTestSupport
import Testing

/// The release's version and commit come from one place, the VERSION file and the checkout's HEAD,
/// and reach `otp --version`, `/healthz` and the metrics alike.
@Suite struct BuildInfoTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("the built-in version is the VERSION file's, a release number")
    func version() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("VERSION"), encoding: .utf8)
        #expect(BuildInfo.version == file.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(BuildInfo.version.split(separator: ".").count == 3)
        #expect(BuildInfo.version.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    @Test("the built-in commit is a commit of this checkout: HEAD when built, or one before it")
    func commit() async throws {
        // HEAD at build time; a commit made since (tests run with --skip-build) comes after it.
        #expect(
            BuildInfo.commit.count == 40 && BuildInfo.commit.allSatisfy(\.isHexDigit), "\(BuildInfo.commit)")
        let history = try await runToEnd("/usr/bin/env", ["git", "-C", Self.root.path, "rev-list", "HEAD"])
        #expect(
            history.split(separator: "\n").contains(Substring(BuildInfo.commit)),
            "\(BuildInfo.commit) is not HEAD or an ancestor of it")
        #expect(BuildInfo.description.contains(String(BuildInfo.commit.prefix(12))))
    }

    @Test("otp --version prints the version and the commit")
    func command() async throws {
        let (status, stdout, _) = await (try ServeProcess(["--version"])).finish()
        #expect(status == 0)
        #expect(stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "otp \(BuildInfo.description)")
    }

    @Test("the metrics carry otp_build_info with the version and the commit")
    func metric() async throws {
        try await Harness.with { harness in
            let text = try await harness.call("GET", "/metrics", key: .some(nil)).text
            #expect(
                text.contains(
                    "otp_build_info{version=\"\(BuildInfo.version)\",commit=\"\(BuildInfo.commit)\"} 1"))
        }
    }
}
