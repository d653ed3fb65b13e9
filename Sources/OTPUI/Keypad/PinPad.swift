#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// A PIN entry: a row of dots over a keypad (UX P1).
    ///
    /// `onComplete` fires with the whole PIN on the last digit. Turning
    /// `isError` on turns the dots red, plays the error haptic and shakes the
    /// row once per transition. `.disabled(true)` dims the dots and turns the
    /// keypad off. The biometric key appears only when `onBiometric` is given.
    public struct PinPad: View {
        @Binding private var value: String
        private let length: Int
        private let biometricLabel: String?
        private let biometricImage: String
        private let isError: Bool
        private let onBiometric: (@MainActor () -> Void)?
        private let onComplete: (@MainActor (String) -> Void)?

        @State private var pad: PinPadState
        @Environment(\.isEnabled) private var isEnabled
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @ScaledMetric(relativeTo: .body) private var dotSize: CGFloat = 14

        /// Creates a PIN pad.
        ///
        /// - Parameters:
        ///   - value: The digits entered.
        ///   - length: The PIN's length, clamped to 4–8.
        ///   - isError: Shows the error state: red dots, one shake and the error haptic per transition.
        ///   - biometricLabel: What assistive technology reads for the biometric key; by default
        ///     "Use Face ID" in the pad's language.
        ///   - biometricImage: The biometric key's SF Symbol.
        ///   - language: The language of what assistive technology reads.
        ///   - onBiometric: The biometric action; without it there is no biometric key.
        ///   - onComplete: Called with the whole PIN when the last digit is entered.
        ///
        /// Every parameter may change while the pad is on screen: a new length starts a new PIN, a
        /// biometric action given or taken away adds or removes the key.
        public init(
            value: Binding<String>, length: Int = 6, isError: Bool = false,
            biometricLabel: String? = nil,
            biometricImage: String = "faceid", language: TextLanguage = .preferred,
            onBiometric: (@MainActor () -> Void)? = nil,
            onComplete: (@MainActor (String) -> Void)? = nil
        ) {
            _value = value
            self.length = length
            self.isError = isError
            self.onBiometric = onBiometric
            self.onComplete = onComplete
            let label = onBiometric == nil ? nil : biometricLabel ?? ScreenText(language).biometricLabel
            self.biometricLabel = label
            self.biometricImage = biometricImage
            _pad = State(
                initialValue: PinPadState(
                    length: length, biometricLabel: label, biometricImage: biometricImage, language: language)
            )
        }

        /// The PIN pad's content.
        public var body: some View {
            VStack(spacing: theme.spacing * 5) {
                dots
                Keypad(
                    rows: pad.rows, isEnabled: { pad.isEnabled($0) }, language: pad.text.language,
                    onPress: press)
            }
            .onChange(
                of: PadParameters(
                    length: length, biometricLabel: biometricLabel, biometricImage: biometricImage)
            ) {
                _, new in
                pad.configure(
                    length: new.length, biometricLabel: new.biometricLabel, biometricImage: new.biometricImage
                )
                if value != pad.value { value = pad.value }
            }
            .onChange(of: pad.announcement) { _, announcement in
                announcement?.accessibilityNotification.post()
            }
            .onChange(of: isError, initial: true) { _, error in pad.setError(error) }
            .onChange(of: isEnabled, initial: true) { _, enabled in pad.isDisabled = !enabled }
            .onChange(of: value, initial: true) { _, newValue in pad.setValue(newValue) }
            .hapticFeedback(.error, trigger: pad.shakeTrigger)
        }

        private var dots: some View {
            let palette = theme.palette(for: colorScheme)
            let fill = palette.color(for: pad.dotRole)
            let outline = palette.outline(for: pad.dotRole, isNext: false)
            return HStack(spacing: theme.spacing * 2) {
                ForEach(Array(pad.dots.enumerated()), id: \.offset) { _, isFilled in
                    Circle()
                        .fill(isFilled ? fill : Color.clear)
                        .overlay {
                            Circle().strokeBorder(isFilled ? fill : outline, lineWidth: 1.5)
                        }
                        .frame(width: dotSize, height: dotSize)
                }
            }
            .frame(minHeight: dotSize * 2)
            .animation(.easeOut(duration: 0.15), value: pad)
            .keyframeAnimator(initialValue: CGFloat.zero, trigger: pad.shakeTrigger) { view, offset in
                view.offset(x: offset)
            } keyframes: { [steps = Motion.shake(reduceMotion: reduceMotion)] _ in
                for step in steps {
                    CubicKeyframe(CGFloat(step.value), duration: step.duration)
                }
            }
            .environment(\.layoutDirection, .leftToRight)
            .accessibilityElement(children: .ignore)
            .accessibilityLabel(Text(verbatim: pad.dotsAccessibilityLabel))
            .accessibilityValue(Text(verbatim: pad.dotsAccessibilityValue))
        }

        private func press(_ key: KeypadKey) {
            let outcome = pad.press(key)
            value = pad.value
            switch outcome {
            case .completed(let pin): onComplete?(pin)
            case .biometric: onBiometric?()
            case .changed, .ignored: break
            }
        }
    }

    /// The parameters a caller may change after creation, compared as one.
    private struct PadParameters: Equatable {
        var length: Int
        var biometricLabel: String?
        var biometricImage: String
    }

    #Preview("PinPad") {
        PinPadPreview()
    }

    #Preview("PinPad, dark") {
        PinPadPreview()
            .preferredColorScheme(.dark)
    }

    #Preview("PinPad, biometric, error") {
        PinPadPreview(biometric: true, isError: true)
    }

    #Preview("PinPad, biometric, error, dark") {
        PinPadPreview(biometric: true, isError: true)
            .preferredColorScheme(.dark)
    }

    /// A PIN pad that rejects every PIN but 123456.
    private struct PinPadPreview: View {
        var biometric = false
        @State var isError = false
        @State private var value = ""

        var body: some View {
            PinPad(
                value: $value, isError: isError, onBiometric: biometric ? { @MainActor in } : nil,
                onComplete: { pin in isError = pin != "123456" }
            )
            .padding()
        }
    }
#endif
