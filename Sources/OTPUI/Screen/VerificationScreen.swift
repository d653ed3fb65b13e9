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
    /// asks. Start the verification with ``VerificationModel/start(to:channel:)``: it starts
    /// once per model, and on a view that reappears (a pushed screen popped, a tab switch) it
    /// resumes the same verification, so `.task` is the place for it (V12).
    ///
    /// ```swift
    /// @State private var model = VerificationModel(service: client) { result in proceed(result) }
    ///
    /// var body: some View {
    ///     VerificationScreen(model: model)
    ///         .task { await model.start(to: phoneNumber) }
    /// }
    /// ```
    ///
    /// The content scrolls at large text sizes and dragging it lets the keyboard go (V14); the
    /// suggestion bar docks above the keyboard at the bottom of the whole screen (S1).
    public struct VerificationScreen: View {
        private enum Focus: Hashable {
            case resend
        }

        private let model: VerificationModel
        @FocusState private var focus: Focus?
        @AccessibilityFocusState private var resendHasAccessibilityFocus: Bool
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @Environment(\.horizontalSizeClass) private var horizontalSizeClass

        /// Creates the screen for a model.
        public init(model: VerificationModel) {
            self.model = model
        }

        /// The screen's content.
        public var body: some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            ScrollView {
                content(palette)
            }
            .scrollDismissesKeyboard(.interactively)
            // The whole screen's height, so the inset below sits on the keyboard, not under Resend.
            .frame(maxWidth: .infinity, maxHeight: .infinity)
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

        /// Title, destination, the approval line, the field, the status, Try again, the inline
        /// suggestion and Resend, top to bottom.
        private func content(_ palette: OTPTheme.Palette) -> some View {
            VStack(spacing: theme.spacing * 2) {
                header(palette)
                if let transaction = model.transactionText {
                    // What the code approves, above the cells (V16).
                    Text(verbatim: transaction)
                        .font(.headline)
                        .foregroundStyle(palette.label)
                        .multilineTextAlignment(.center)
                }
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
                HStack(spacing: theme.spacing) {
                    if model.isSending {
                        // "Sending a code…" with progress until the first code exists (V11).
                        ProgressView()
                    }
                    Text(verbatim: model.sentToText)
                        .font(.subheadline)
                        .foregroundStyle(palette.secondaryLabel)
                }
                // Isolated left to right, so an Arabic screen cannot reverse the number (V15).
                Text(verbatim: model.isolatedDestination)
                    .font(.subheadline.weight(.semibold))
                    .foregroundStyle(palette.label)
                    .environment(\.layoutDirection, .leftToRight)
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

        /// "Try again" after a failed first send (V11) or a check that got no answer (V9).
        ///
        /// It sends or checks again, and is at least 44 pt tall (V14).
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
                    .frame(minHeight: CGFloat(ScreenMetrics.minimumTapTarget))
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
                    .frame(minHeight: CGFloat(ScreenMetrics.minimumTapTarget))
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
                    await model.start(to: "+1 201 555 0100")
                    model.offerSuggestion("482019")
                }
        }
    }
#endif
