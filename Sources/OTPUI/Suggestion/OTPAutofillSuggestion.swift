#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The "From Messages" bar that offers a received code (UX S1).
    ///
    /// The whole bar is one button. Inside ``VerificationScreen`` it appears
    /// while ``VerificationModel/shownSuggestion`` has a code, and choosing it
    /// types the code in digit by digit, then submits it.
    public struct OTPAutofillSuggestion: View {
        private let code: String
        private let source: String
        private let action: @MainActor () -> Void

        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme

        /// Creates a suggestion bar.
        ///
        /// - Parameters:
        ///   - code: The received code.
        ///   - source: Where the code came from, "From Messages" by default.
        ///   - action: Called when the bar is chosen.
        public init(
            code: String, source: String = ScreenText.fromMessages, action: @escaping @MainActor () -> Void
        ) {
            self.code = code
            self.source = source
            self.action = action
        }

        /// The bar's content.
        public var body: some View {
            let palette = theme.palette(for: colorScheme)
            Button(action: action) {
                VStack(spacing: theme.spacing / 4) {
                    Text(verbatim: source)
                        .font(.footnote)
                        .foregroundStyle(palette.secondaryLabel)
                    Text(verbatim: code)
                        .font(.system(.headline, design: .rounded, weight: .semibold).monospacedDigit())
                        .foregroundStyle(palette.label)
                }
                .padding(.horizontal, theme.spacing * 3)
                .padding(.vertical, theme.spacing)
            }
            .buttonStyle(
                KeyButtonStyle(
                    shape: RoundedRectangle(cornerRadius: theme.cornerRadius, style: .continuous),
                    fill: palette.surface, pressedFill: palette.border))
        }
    }

    #Preview("OTPAutofillSuggestion") {
        OTPAutofillSuggestion(code: "482019") {}
            .padding()
    }

    #Preview("OTPAutofillSuggestion, dark") {
        OTPAutofillSuggestion(code: "482019") {}
            .padding()
            .preferredColorScheme(.dark)
    }
#endif
