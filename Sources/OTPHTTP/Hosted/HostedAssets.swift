import Foundation
import OTPCore
import OTPEngine

/// The hosted verification page's script and stylesheet, served by `otp serve` as they are.
///
/// The page works as a plain form without them; the script enhances it into the code field with
/// cells (UX F1–F10, S1, V1–V10), and the stylesheet draws both forms in light and dark, left to
/// right and right to left. Neither loads anything from another origin, uses inline handlers or
/// `eval`, or sets a `style` attribute, so the page runs under a strict Content-Security-Policy.
enum HostedAssets {
    /// The script, `/v/assets/otp.js`: plain JavaScript (ES2020), no build step, no modules.
    ///
    /// Kept as `Assets/otp.js` and turned into Swift at build time by the `EmbedHostedAssets`
    /// plugin, so the binary stays one file.
    static let script: String = HostedAssetFiles.otpJS

    /// The script as served: its English fallback sentences are the string catalog's, put in place
    /// of its `/* OTP_ENGLISH_STRINGS */ {}` once.
    static let servedScript: [UInt8] = {
        let english = HostedPageHTML.strings(
            ScreenText.english, format: CodeFormat.default, maxAttempts: Policy.default.maxAttempts)
        let json =
            (try? JSONSerialization.data(withJSONObject: english, options: [.sortedKeys])).map {
                String(decoding: $0, as: UTF8.self)
            } ?? "{}"
        return Array(script.replacingOccurrences(of: "/* OTP_ENGLISH_STRINGS */ {}", with: json).utf8)
    }()

    /// The stylesheet, `/v/assets/otp.css`, kept as `Assets/otp.css`.
    static let stylesheet: String = HostedAssetFiles.otpCSS
}
