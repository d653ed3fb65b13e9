#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// A numeric keypad: 1–9, then the accessory key, 0 and delete (UX K1).
    ///
    /// Keys are buttons labelled for assistive technology; each press plays a
    /// selection haptic. Which keys exist and which are enabled come from
    /// OTPCore (``KeypadLayout``, ``KeypadInput``, ``PinPadState``).
    public struct Keypad: View {
        private let rows: [[KeypadKey]]
        private let text: ScreenText
        private let deleteLabel: String?
        private let isKeyEnabled: (KeypadKey) -> Bool
        private let onPress: @MainActor (KeypadKey) -> Void

        @State private var presses = 0
        @Environment(\.otpTheme) private var theme
        @Environment(\.colorScheme) private var colorScheme
        @Environment(\.colorSchemeContrast) private var contrast
        @Environment(\.pinPadStyle) private var style
        @ScaledMetric(relativeTo: .title) private var scale: CGFloat = 1

        /// Creates a keypad from rows of keys.
        ///
        /// - Parameters:
        ///   - rows: The keys, such as ``KeypadLayout/rows(accessory:)``.
        ///   - isEnabled: Whether a key can be pressed, such as ``PinPadState/isEnabled(_:)``.
        ///   - language: The language of the keys' accessibility labels.
        ///   - deleteLabel: What assistive technology reads for the delete key; by default "Delete"
        ///     in the language.
        ///   - onPress: Called with each pressed key.
        public init(
            rows: [[KeypadKey]], isEnabled: @escaping (KeypadKey) -> Bool,
            language: TextLanguage = .preferred, deleteLabel: String? = nil,
            onPress: @escaping @MainActor (KeypadKey) -> Void
        ) {
            self.rows = rows
            self.text = ScreenText(language)
            self.deleteLabel = deleteLabel
            self.isKeyEnabled = isEnabled
            self.onPress = onPress
        }

        /// Creates a keypad that edits a ``KeypadInput`` and reports what each press did.
        ///
        /// Delete is disabled while nothing is entered.
        public init(
            input: Binding<KeypadInput>, accessory: KeypadAccessory = .none,
            language: TextLanguage = .preferred,
            onOutcome: @escaping @MainActor (KeypadInput.Outcome) -> Void = { _ in }
        ) {
            self.init(
                rows: KeypadLayout.rows(accessory: accessory),
                isEnabled: { key in input.wrappedValue.isEnabled(key) }, language: language,
                onPress: { key in onOutcome(input.wrappedValue.press(key)) })
        }

        /// The keypad's content.
        public var body: some View {
            VStack(spacing: style.keyRowSpacing ?? theme.spacing * 1.5) {
                ForEach(Array(rows.enumerated()), id: \.offset) { _, row in
                    HStack(spacing: style.keySpacing ?? theme.spacing * 3) {
                        ForEach(row) { key in
                            keyView(key)
                        }
                    }
                }
            }
            // A phone keypad keeps its layout in right-to-left languages: the accessory key stays
            // bottom left, delete bottom right (K1, P1).
            .environment(\.layoutDirection, .leftToRight)
            // A hardware keyboard types on the keypad too: digits, Delete, the decimal point (item 12).
            .focusable()
            .onKeyPress(phases: .down) { press in
                guard let key = KeypadKey(hardwareCharacters: press.characters, accessory: accessory),
                    isKeyEnabled(key)
                else { return .ignored }
                presses += 1
                onPress(key)
                return .handled
            }
            .hapticFeedback(.selection, trigger: presses)
        }

        /// The accessory key of the rows, for reading a hardware keyboard's decimal point.
        private var accessory: KeypadAccessory {
            for case .accessory(let accessory) in rows.joined() { return accessory }
            return .none
        }

        @ViewBuilder
        private func keyView(_ key: KeypadKey) -> some View {
            let palette = theme.palette(for: colorScheme, contrast: contrast)
            if key.isVisible {
                Button {
                    presses += 1
                    onPress(key)
                } label: {
                    keyLabel(key)
                        .font(.system(.title, design: .rounded, weight: .medium))
                        .foregroundStyle(palette.label)
                        .frame(maxWidth: .infinity, minHeight: style.keyHeight * scale)
                }
                .buttonStyle(
                    KeyButtonStyle(
                        shape: RoundedRectangle(cornerRadius: theme.cornerRadius * 1.5, style: .continuous),
                        fill: palette.surface, pressedFill: palette.border)
                )
                .disabled(!isKeyEnabled(key))
                .accessibilityLabel(Text(verbatim: label(for: key)))
            } else {
                Color.clear
                    .frame(maxWidth: .infinity, minHeight: style.keyHeight * scale)
                    .accessibilityHidden(true)
            }
        }

        /// What assistive technology reads for a key: the caller's delete label, or the key's own.
        private func label(for key: KeypadKey) -> String {
            if key == .delete, let deleteLabel { return deleteLabel }
            return key.accessibilityLabel(in: text)
        }

        @ViewBuilder
        private func keyLabel(_ key: KeypadKey) -> some View {
            switch key {
            case .accessory(.biometric(_, let systemImage)):
                Image(systemName: systemImage)
            case .delete:
                Image(systemName: "delete.left")
            case .digit, .accessory:
                Text(verbatim: key.title)
            }
        }
    }

    #Preview("Keypad") {
        KeypadPreview()
    }

    #Preview("Keypad, dark") {
        KeypadPreview()
            .preferredColorScheme(.dark)
    }

    /// A keypad with a decimal key over the value it edits.
    private struct KeypadPreview: View {
        @State private var input = KeypadInput(maxLength: 6)

        var body: some View {
            VStack(spacing: 24) {
                Text(verbatim: input.value.isEmpty ? "0" : input.value)
                    .font(.largeTitle)
                Keypad(input: $input, accessory: .decimal)
            }
            .padding()
        }
    }
#endif
