import Foundation

/// The release this server was built as: its version and the commit it was built from.
///
/// Both are built in from one place: the package's `VERSION` file and the checkout's `HEAD`
/// (`unknown` when built outside a checkout). `otp --version`, `/healthz` and the
/// `otp_build_info{version,commit}` metric read them here.
public enum BuildInfo {
    /// The release's version, such as `0.9.0`.
    public static let version = BuildInfoFiles.version.trimmingCharacters(in: .whitespacesAndNewlines)
    /// The commit, as 40 hexadecimal digits, or `unknown`.
    public static let commit = BuildInfoFiles.commit

    /// `0.9.0 (commit 1a2b3c4d5e6f)`.
    public static var description: String {
        "\(version) (commit \(commit == "unknown" ? commit : String(commit.prefix(12))))"
    }
}
