#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The "From Messages" bar that offers a received code (UX S1), naming where the code came from.
    ///
    /// The whole bar is one button, hidden while `code` is `nil` or blank. Inside
    /// ``VerificationScreen`` it appears
    /// while ``VerificationModel/shownSuggestion`` has a code and the keyboard is up,
    /// docked above the keyboard on an iPhone and inline on wider layouts; choosing it
    /// types the code in digit by digit, then submits it.
    public struct OTPAutofillSuggestion: View {
        private let code: String?
        private let source: String
        private let label: String
        private let action: @MainActor () -> Void

        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast

        /// Creates a suggestion bar for a code from one of the usual sources.
        ///
        /// - Parameters:
        ///   - code: The received code; the bar is hidden while it is `nil` or blank.
        ///   - source: Where the code came from: Messages by default, Mail, a notification or a link.
        ///   - language: The language of the source line and the accessibility label.
        ///   - action: Called when the bar is chosen.
        public init(
            code: String?, source: SuggestionSource = .messages, language: TextLanguage = .preferred,
            action: @escaping @MainActor () -> Void
        ) {
            let text = ScreenText(language)
            self.init(
                code: code, sourceText: text.suggestionSource(source),
                accessibilityLabel: SuggestionBar.shownCode(code).map {
                    text.suggestionLabel(code: $0, source: source)
                },
                action: action)
        }

        /// Creates a suggestion bar with the caller's own source line, such as "From Authenticator".
        ///
        /// - Parameters:
        ///   - code: The received code; the bar is hidden while it is `nil` or blank.
        ///   - sourceText: The line above the code.
        ///   - accessibilityLabel: What assistive technology reads for the bar; the source line and
        ///     the code when `nil`.
        ///   - action: Called when the bar is chosen.
        public init(
            code: String?, sourceText: String, accessibilityLabel: String? = nil,
            action: @escaping @MainActor () -> Void
        ) {
            self.code = SuggestionBar.shownCode(code)
            self.source = sourceText
            self.label = accessibilityLabel ?? "\(sourceText), \(self.code ?? "")"
            self.action = action
        }

        /// The bar's content: nothing while there is no code.
        public var body: some View {
            if let code {
                bar(code)
            }
        }

        private func bar(_ code: String) -> some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            return Button(action: action) {
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
                    fill: palette.surface, pressedFill: palette.border)
            )
            .accessibilityElement(children: .ignore)
            .accessibilityLabel(Text(verbatim: label))
            .accessibilityAddTraits(.isButton)
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

    #Preview("OTPAutofillSuggestion, from Mail, then none") {
        VStack(spacing: 16) {
            OTPAutofillSuggestion(code: "482019", source: .mail) {}
            // Hidden: there is no code to offer.
            OTPAutofillSuggestion(code: nil, source: .mail) {}
        }
        .padding()
    }
#endif
