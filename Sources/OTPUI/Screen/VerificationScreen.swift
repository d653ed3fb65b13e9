#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The whole verification screen (UX V1–V10), drawn from a ``VerificationModel``.
    ///
    /// Title, destination, the code field, the status line, "Try again" after a
    /// network failure, the suggestion bar, the Resend button with its
    /// countdown, and the toast. Every text, colour role and timing comes from
    /// the model; the screen posts the model's new announcements with their
    /// priority, plays its haptics and moves focus to Resend when the model
    /// asks. Start the verification with ``VerificationModel/start(to:channel:)``.
    ///
    /// ```swift
    /// @State private var model = VerificationModel(service: client) { result in proceed(result) }
    ///
    /// var body: some View {
    ///     VerificationScreen(model: model)
    ///         .task { await model.start(to: phoneNumber) }
    /// }
    /// ```
    public struct VerificationScreen: View {
        private enum Focus: Hashable {
            case resend
        }

        private let model: VerificationModel
        @FocusState private var focus: Focus?
        @AccessibilityFocusState private var resendHasAccessibilityFocus: Bool
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @Environment(\.horizontalSizeClass) private var horizontalSizeClass

        /// Creates the screen for a model.
        public init(model: VerificationModel) {
            self.model = model
        }

        /// The screen's content.
        public var body: some View {
            let palette = theme.palette(for: colorScheme)
            VStack(spacing: theme.spacing * 2) {
                header(palette)
                OTPField(model: model)
                    .padding(.top, theme.spacing)
                statusLine(palette)
                if model.canRetry {
                    tryAgainButton(palette)
                        .transition(.opacity)
                }
                if !docksSuggestion, let code = model.shownSuggestion {
                    suggestionBar(code)
                }
                if model.isResendVisible {
                    resendButton(palette)
                }
            }
            .padding(theme.spacing * 3)
            .frame(maxWidth: .infinity)
            .safeAreaInset(edge: .bottom) {
                // On an iPhone the bar docks at the bottom of the safe area, which is the top of
                // the keyboard while it is up (seed 000); the bar shows only with the keyboard up.
                if docksSuggestion, let code = model.shownSuggestion {
                    suggestionBar(code)
                        .padding(.bottom, theme.spacing)
                }
            }
            .overlay(alignment: .top) {
                if let toast = model.toast {
                    ToastView(text: toast.text)
                        .transition(toastTransition)
                }
            }
            .animation(.snappy, value: model.toast)
            .animation(.snappy, value: model.shownSuggestion)
            .animation(.snappy, value: model.canRetry)
            .onChange(of: model.announcements) { spoken, _ in post(after: spoken.last) }
            .onChange(of: model.focusResendTrigger) {
                focus = .resend
                resendHasAccessibilityFocus = true
            }
        }

        /// Whether the suggestion bar docks above the keyboard (compact width) or sits inline as a pill.
        private var docksSuggestion: Bool { horizontalSizeClass == .compact }

        /// The suggestion bar, naming the code's source (S1).
        private func suggestionBar(_ code: String) -> some View {
            OTPAutofillSuggestion(
                code: code, sourceText: model.suggestionSourceText,
                accessibilityLabel: model.suggestionAccessibilityLabel
            ) { model.acceptSuggestion() }
            .transition(.opacity)
        }

        /// The toast slides from the top while fading, or under Reduce Motion only fades (V6).
        private var toastTransition: AnyTransition {
            switch Motion.toast(reduceMotion: reduceMotion) {
            case .slideAndFade: .move(edge: .top).combined(with: .opacity)
            case .fade: .opacity
            }
        }

        private func header(_ palette: OTPTheme.Palette) -> some View {
            VStack(spacing: theme.spacing) {
                Text(verbatim: model.title)
                    .font(.title2.weight(.bold))
                    .foregroundStyle(palette.label)
                    .accessibilityAddTraits(.isHeader)
                Text(verbatim: model.sentToText)
                    .font(.subheadline)
                    .foregroundStyle(palette.secondaryLabel)
                Text(verbatim: model.destination)
                    .font(.subheadline.weight(.semibold))
                    .foregroundStyle(palette.label)
            }
            .multilineTextAlignment(.center)
        }

        /// The status line under the cells, such as "Verifying…", in its colour role.
        private func statusLine(_ palette: OTPTheme.Palette) -> some View {
            let message = model.statusMessage
            return Text(verbatim: message?.text ?? " ")
                .font(.footnote)
                .foregroundStyle(palette.color(for: message?.role ?? .neutral))
                .multilineTextAlignment(.center)
                .frame(minHeight: 20)
        }

        /// "Try again" after a check that got no answer: checks the same code again (V9).
        ///
        /// Shown while the model can retry, and disabled by the same flag, so the copy that fades out
        /// after a press cannot be pressed twice.
        private func tryAgainButton(_ palette: OTPTheme.Palette) -> some View {
            Button {
                model.retry()
            } label: {
                Text(verbatim: model.text.tryAgain)
                    .font(.body.weight(.semibold))
                    .foregroundStyle(palette.accent)
                    .padding(theme.spacing)
            }
            .disabled(!model.canRetry)
        }

        /// Resend, disabled while its countdown runs; its label updates silently (V5).
        private func resendButton(_ palette: OTPTheme.Palette) -> some View {
            Button {
                model.resend()
            } label: {
                Text(verbatim: model.resendLabel)
                    .font(.body.weight(.semibold).monospacedDigit())
                    .foregroundStyle(palette.accent)
                    .padding(theme.spacing)
            }
            .disabled(!model.isResendEnabled)
            .opacity(model.isResendEnabled ? 1 : 0.5)
            .focused($focus, equals: .resend)
            .accessibilityFocused($resendHasAccessibilityFocus)
        }

        /// Speaks the announcements made after `spoken`, each with its priority.
        private func post(after spoken: Announcement?) {
            for announcement in model.announcements(after: spoken?.serial ?? 0) {
                announcement.accessibilityNotification.post()
            }
        }
    }

    #Preview("VerificationScreen") {
        VerificationScreenPreview()
    }

    #Preview("VerificationScreen, dark") {
        VerificationScreenPreview()
            .preferredColorScheme(.dark)
    }

    #Preview("VerificationScreen, right to left") {
        VerificationScreenPreview()
            .environment(\.layoutDirection, .rightToLeft)
    }

    /// The screen against the in-memory service, whose code is 482019, with the code offered.
    private struct VerificationScreenPreview: View {
        @State private var model = VerificationModel(service: PreviewVerificationService())

        var body: some View {
            VerificationScreen(model: model)
                .task {
                    await model.start(to: "+1 555 0100")
                    model.offerSuggestion("482019")
                }
        }
    }
#endif
