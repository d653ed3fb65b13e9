#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// A PIN entry: a row of dots over a keypad (UX P1).
    ///
    /// `onComplete` fires with the whole PIN on the last digit. Turning
    /// `isError` on turns the dots red, plays the error haptic and shakes the
    /// row once per transition. `.disabled(true)` dims the dots and turns the
    /// keypad off. The biometric key appears only when `onBiometric` is given.
    /// Sizes come from `.pinPadStyle(_:)`, colours from `.otpTheme(_:)`.
    ///
    /// The pad edits a binding, or keeps its own value from `defaultValue`; either way
    /// `onValueChange` hears every digit and deletion.
    public struct PinPad: View {
        private let binding: Binding<String>?
        private let length: Int
        private let biometricLabel: String?
        private let biometricImage: String
        private let deleteLabel: String?
        private let dotsLabel: (@MainActor (_ entered: Int, _ length: Int) -> String)?
        private let isError: Bool
        private let onBiometric: (@MainActor () -> Void)?
        private let onValueChange: (@MainActor (String) -> Void)?
        private let onComplete: (@MainActor (String) -> Void)?

        @State private var pad: PinPadState
        @State private var ownValue: String
        @Environment(\.isEnabled) private var isEnabled
        @Environment(\.otpTheme) private var theme
        @Environment(\.pinPadStyle) private var style
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast
        @Environment(\.accessibilityReduceMotion) private var reduceMotion
        @ScaledMetric(relativeTo: .body) private var scale: CGFloat = 1

        /// Creates a PIN pad that edits a binding.
        ///
        /// - Parameters:
        ///   - value: The digits entered; anything else written to it is removed.
        ///   - length: The PIN's length, clamped to 4–8.
        ///   - isError: Shows the error state: red dots, one shake and the error haptic for each PIN it
        ///     is on after (set it in `onComplete`, even when it is already on).
        ///   - biometricLabel: What assistive technology reads for the biometric key; by default
        ///     "Use Face ID" in the pad's language.
        ///   - biometricImage: The biometric key's SF Symbol.
        ///   - deleteLabel: What assistive technology reads for the delete key; by default "Delete"
        ///     in the pad's language.
        ///   - dotsLabel: The dots row's spoken value for (entered, length); by default
        ///     "3 of 6 entered" in the pad's language.
        ///   - language: The language of what assistive technology reads.
        ///   - onBiometric: The biometric action; without it there is no biometric key.
        ///   - onValueChange: Called with the value after each digit or deletion.
        ///   - onComplete: Called with the whole PIN when the last digit is entered.
        ///
        /// Every parameter may change while the pad is on screen: a new length starts a new PIN, a
        /// biometric action given or taken away adds or removes the key.
        public init(
            value: Binding<String>, length: Int = 6, isError: Bool = false,
            biometricLabel: String? = nil, biometricImage: String = "faceid", deleteLabel: String? = nil,
            dotsLabel: (@MainActor (_ entered: Int, _ length: Int) -> String)? = nil,
            language: TextLanguage = .preferred,
            onBiometric: (@MainActor () -> Void)? = nil,
            onValueChange: (@MainActor (String) -> Void)? = nil,
            onComplete: (@MainActor (String) -> Void)? = nil
        ) {
            self.init(
                binding: value, defaultValue: value.wrappedValue, length: length, isError: isError,
                biometricLabel: biometricLabel, biometricImage: biometricImage, deleteLabel: deleteLabel,
                dotsLabel: dotsLabel, language: language, onBiometric: onBiometric,
                onValueChange: onValueChange, onComplete: onComplete)
        }

        /// Creates a PIN pad that keeps its own value, starting from `defaultValue`.
        ///
        /// - Parameters:
        ///   - defaultValue: The digits to start with; anything but ASCII digits is removed.
        ///   - length: The PIN's length, clamped to 4–8.
        ///   - isError: Shows the error state: red dots, one shake and the error haptic for each PIN it
        ///     is on after (set it in `onComplete`, even when it is already on).
        ///   - biometricLabel: What assistive technology reads for the biometric key.
        ///   - biometricImage: The biometric key's SF Symbol.
        ///   - deleteLabel: What assistive technology reads for the delete key.
        ///   - dotsLabel: The dots row's spoken value for (entered, length).
        ///   - language: The language of what assistive technology reads.
        ///   - onBiometric: The biometric action; without it there is no biometric key.
        ///   - onValueChange: Called with the value after each digit or deletion.
        ///   - onComplete: Called with the whole PIN when the last digit is entered.
        public init(
            defaultValue: String = "", length: Int = 6, isError: Bool = false,
            biometricLabel: String? = nil, biometricImage: String = "faceid", deleteLabel: String? = nil,
            dotsLabel: (@MainActor (_ entered: Int, _ length: Int) -> String)? = nil,
            language: TextLanguage = .preferred,
            onBiometric: (@MainActor () -> Void)? = nil,
            onValueChange: (@MainActor (String) -> Void)? = nil,
            onComplete: (@MainActor (String) -> Void)? = nil
        ) {
            self.init(
                binding: nil, defaultValue: defaultValue, length: length, isError: isError,
                biometricLabel: biometricLabel, biometricImage: biometricImage, deleteLabel: deleteLabel,
                dotsLabel: dotsLabel, language: language, onBiometric: onBiometric,
                onValueChange: onValueChange, onComplete: onComplete)
        }

        private init(
            binding: Binding<String>?, defaultValue: String, length: Int, isError: Bool,
            biometricLabel: String?, biometricImage: String, deleteLabel: String?,
            dotsLabel: (@MainActor (_ entered: Int, _ length: Int) -> String)?, language: TextLanguage,
            onBiometric: (@MainActor () -> Void)?, onValueChange: (@MainActor (String) -> Void)?,
            onComplete: (@MainActor (String) -> Void)?
        ) {
            self.binding = binding
            self.length = length
            self.isError = isError
            self.onBiometric = onBiometric
            self.onValueChange = onValueChange
            self.onComplete = onComplete
            self.deleteLabel = deleteLabel
            self.dotsLabel = dotsLabel
            let label = onBiometric == nil ? nil : biometricLabel ?? ScreenText(language).biometricLabel
            self.biometricLabel = label
            self.biometricImage = biometricImage
            let state = PinPadState(
                length: length, initialValue: defaultValue, biometricLabel: label,
                biometricImage: biometricImage,
                deleteLabel: deleteLabel, language: language)
            _pad = State(initialValue: state)
            _ownValue = State(initialValue: state.value)
        }

        /// The value shown: the caller's binding, or the pad's own.
        private var value: String { binding?.wrappedValue ?? ownValue }

        /// The PIN pad's content.
        public var body: some View {
            VStack(spacing: style.padSpacing ?? theme.spacing * 5) {
                dots
                Keypad(
                    rows: pad.rows, isEnabled: { pad.isEnabled($0) }, language: pad.text.language,
                    deleteLabel: deleteLabel, onPress: press)
            }
            .onChange(
                of: PadParameters(
                    length: length, biometricLabel: biometricLabel, biometricImage: biometricImage,
                    deleteLabel: deleteLabel)
            ) {
                _, new in
                pad.configure(
                    length: new.length, biometricLabel: new.biometricLabel, biometricImage: new.biometricImage
                )
                pad.deleteLabel = new.deleteLabel
                write(pad.value)
            }
            .onChange(of: pad.announcement) { _, announcement in
                guard let announcement else { return }
                var spoken = announcement
                spoken.text = pad.dotsAccessibilityValue(label: dotsLabel)
                spoken.post()
            }
            .onChange(of: isError, initial: true) { _, error in pad.setError(error) }
            // The caller's flag is read again for each completed PIN: kept on through two wrong PINs
            // it does not change, and still turns the second one red and shakes it (item 7).
            .onChange(of: pad.completionCount) { pad.setError(isError) }
            .onChange(of: isEnabled, initial: true) { _, enabled in pad.isDisabled = !enabled }
            .onChange(of: value, initial: true) { _, newValue in
                pad.setValue(newValue)
                // Digits only: what the pad refused is taken out of the caller's value too.
                if newValue != pad.value { write(pad.value) }
            }
            .hapticFeedback(.error, trigger: pad.shakeTrigger)
        }

        private var dots: some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            let fill = palette.color(for: pad.dotRole)
            let outline = palette.outline(for: pad.dotRole, isNext: false)
            let diameter = style.dotDiameter * scale
            return HStack(spacing: style.dotSpacing ?? theme.spacing * 2) {
                ForEach(Array(pad.dots.enumerated()), id: \.offset) { _, isFilled in
                    Circle()
                        .fill(isFilled ? fill : Color.clear)
                        .overlay {
                            Circle().strokeBorder(isFilled ? fill : outline, lineWidth: 1.5)
                        }
                        .frame(width: diameter, height: diameter)
                }
            }
            .frame(minHeight: diameter * 2)
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
            .accessibilityValue(Text(verbatim: pad.dotsAccessibilityValue(label: dotsLabel)))
        }

        private func press(_ key: KeypadKey) {
            let outcome = pad.press(key)
            write(pad.value)
            switch outcome {
            case .completed(let pin): onComplete?(pin)
            case .biometric: onBiometric?()
            case .changed, .ignored: break
            }
        }

        /// Stores a new value in the binding or the pad's own, and tells `onValueChange` when it changed.
        private func write(_ newValue: String) {
            guard newValue != value else { return }
            if let binding { binding.wrappedValue = newValue } else { ownValue = newValue }
            onValueChange?(newValue)
        }
    }

    /// The parameters a caller may change after creation, compared as one.
    private struct PadParameters: Equatable {
        var length: Int
        var biometricLabel: String?
        var biometricImage: String
        var deleteLabel: String?
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

    #Preview("PinPad, its own value, four digits, custom labels and sizes") {
        PinPad(
            defaultValue: "12ab", length: 4, deleteLabel: "Erase",
            dotsLabel: { entered, length in "\(entered) / \(length)" },
            onValueChange: { _ in }, onComplete: { _ in }
        )
        .pinPadStyle(PinPadStyle(dotDiameter: 18, keyHeight: 72))
        .padding()
    }

    /// A PIN pad that rejects every PIN but 123456; the next key after an error clears it.
    private struct PinPadPreview: View {
        var biometric = false
        @State var isError = false
        @State private var value = ""

        var body: some View {
            PinPad(
                value: $value, isError: isError, onBiometric: biometric ? { @MainActor in } : nil,
                onValueChange: { _ in isError = false },
                onComplete: { pin in isError = pin != "123456" }
            )
            .padding()
        }
    }
#endif
