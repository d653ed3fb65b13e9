#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The one-time-code field: visible cells driven by one hidden, real text field (UX F1–F10).
    ///
    /// Inside ``VerificationScreen`` it is driven by a ``VerificationModel``. On
    /// its own it edits a binding and calls `onComplete` once with each complete
    /// code; count rejections in `rejections` (or set `isInvalid`) to colour and
    /// shake the cells.
    ///
    /// ```swift
    /// OTPField(code: $code, rejections: rejected) { code in submit(code) }
    /// ```
    public struct OTPField: View {
        private enum Source {
            case model(VerificationModel)
            case standalone(Standalone)
        }

        private struct Standalone {
            var code: Binding<String>
            var format: CodeFormat
            var isMasked: Bool
            var isInvalid: Bool
            var rejections: Int
            var language: TextLanguage
            var onComplete: @MainActor (String) -> Void
        }

        private let source: Source

        /// Creates a field driven by a verification model, as ``VerificationScreen`` uses it.
        public init(model: VerificationModel) {
            source = .model(model)
        }

        /// Creates a field on its own, marked wrong while `isInvalid` is set.
        ///
        /// The cells shake when `isInvalid` turns on. A caller that leaves it on through two wrong
        /// codes in a row gets one shake; count rejections with
        /// ``init(code:format:isMasked:rejections:onComplete:)`` to shake for each.
        ///
        /// - Parameters:
        ///   - code: The normalised code entered so far.
        ///   - format: The code's length and characters.
        ///   - isMasked: Shows `•` instead of the characters (UX F9).
        ///   - isInvalid: Marks the code as rejected: error colour, one shake, the next key starts over (F5, F6).
        ///   - language: The language of what assistive technology reads.
        ///   - onComplete: Called once with each complete code (F4).
        public init(
            code: Binding<String>, format: CodeFormat = .default, isMasked: Bool = false,
            isInvalid: Bool = false, language: TextLanguage = .preferred,
            onComplete: @escaping @MainActor (String) -> Void
        ) {
            source = .standalone(
                Standalone(
                    code: code, format: format, isMasked: isMasked, isInvalid: isInvalid, rejections: 0,
                    language: language, onComplete: onComplete))
        }

        /// Creates a field on its own that counts the caller's rejections, so every wrong code shakes.
        ///
        /// - Parameters:
        ///   - code: The normalised code entered so far.
        ///   - format: The code's length and characters.
        ///   - isMasked: Shows `•` instead of the characters (UX F9).
        ///   - rejections: How many codes the caller has rejected. Each increase marks the code
        ///     entered rejected: error colour, one shake, the next key starts over (F5, F6).
        ///   - language: The language of what assistive technology reads.
        ///   - onComplete: Called once with each complete code (F4).
        public init(
            code: Binding<String>, format: CodeFormat = .default, isMasked: Bool = false, rejections: Int,
            language: TextLanguage = .preferred, onComplete: @escaping @MainActor (String) -> Void
        ) {
            source = .standalone(
                Standalone(
                    code: code, format: format, isMasked: isMasked, isInvalid: false, rejections: rejections,
                    language: language, onComplete: onComplete))
        }

        /// The field's content.
        public var body: some View {
            switch source {
            case .model(let model):
                ModelCodeField(model: model)
            case .standalone(let field):
                StandaloneCodeField(
                    code: field.code, format: field.format, isMasked: field.isMasked,
                    isInvalid: field.isInvalid, rejections: field.rejections, language: field.language,
                    onComplete: field.onComplete)
            }
        }
    }

    /// The field as the verification screen drives it: every value from the model.
    struct ModelCodeField: View {
        let model: VerificationModel

        var body: some View {
            let haptic = model.hapticEvent
            CodeCellsInput(
                connection: CodeInputConnection(
                    code: { model.codeText },
                    edit: { model.edit($0) },
                    focusChanged: { model.isFocused = $0 },
                    keepsKeyboard: model.keepsKeyboard,
                    kind: model.format.kind,
                    accessibilityLabel: model.accessibilityLabel,
                    accessibilityValue: model.accessibilityValue),
                cells: model.cells,
                format: model.format,
                shakeTrigger: model.shakeTrigger
            )
            .hapticFeedback(trigger: haptic) { haptic?.haptic.sensoryFeedback }
        }
    }

    /// The field on its own: a ``CodeFieldState`` keeps normalisation, submit-once,
    /// replace-after-rejection and the shake; the view forwards edits, the caller's format,
    /// the invalid flag and each new rejection.
    struct StandaloneCodeField: View {
        @Binding var code: String
        let format: CodeFormat
        let isMasked: Bool
        let isInvalid: Bool
        let rejections: Int
        let onComplete: @MainActor (String) -> Void

        @State private var field: CodeFieldState
        @State private var isFocused = false

        init(
            code: Binding<String>, format: CodeFormat, isMasked: Bool, isInvalid: Bool, rejections: Int,
            language: TextLanguage, onComplete: @escaping @MainActor (String) -> Void
        ) {
            _code = code
            _field = State(initialValue: CodeFieldState(format: format, language: language))
            self.format = format
            self.isMasked = isMasked
            self.isInvalid = isInvalid
            self.rejections = rejections
            self.onComplete = onComplete
        }

        var body: some View {
            CodeCellsInput(
                connection: CodeInputConnection(
                    code: { field.value },
                    edit: { edit($0) },
                    focusChanged: { isFocused = $0 },
                    keepsKeyboard: true,
                    kind: field.format.kind,
                    accessibilityLabel: field.text.fieldLabel,
                    accessibilityValue: field.accessibilityValue),
                cells: field.cells(isFocused: isFocused, isMasked: isMasked),
                format: field.format,
                shakeTrigger: field.shakeTrigger
            )
            .onChange(of: format, initial: true) { _, newFormat in
                field.setFormat(newFormat)
                code = field.value
            }
            .onChange(of: code, initial: true) { _, newCode in
                if newCode != field.value { replace(with: newCode) }
            }
            .onChange(of: isInvalid, initial: true) { _, invalid in field.setInvalid(invalid) }
            .onChange(of: rejections) { old, new in
                if new > old { field.reject() }
            }
            .hapticFeedback(.error, trigger: field.shakeTrigger)
        }

        /// Hands an edit to the field state, writes the code back and passes on a complete code.
        private func edit(_ edit: TextEdit) -> TextEditOutcome {
            let (outcome, submission) = field.edit(edit)
            code = field.value
            if let submission { onComplete(submission) }
            return outcome
        }

        /// The caller set the binding: its text replaces the code, normalised.
        private func replace(with text: String) {
            let submission = field.edit(text)
            code = field.value
            if let submission { onComplete(submission) }
        }
    }

    #Preview("OTPField") {
        StandaloneFieldPreview()
    }

    #Preview("OTPField, dark") {
        StandaloneFieldPreview()
            .preferredColorScheme(.dark)
    }

    #Preview("OTPField, masked 8") {
        StandaloneFieldPreview(format: CodeFormat(length: 8), isMasked: true)
    }

    #Preview("OTPField, masked 8, dark") {
        StandaloneFieldPreview(format: CodeFormat(length: 8), isMasked: true)
            .preferredColorScheme(.dark)
    }

    /// A field on its own that rejects every code but 482019, to show the shake.
    private struct StandaloneFieldPreview: View {
        var format = CodeFormat.default
        var isMasked = false
        @State private var code = ""
        @State private var rejections = 0

        var body: some View {
            VStack(spacing: 16) {
                OTPField(code: $code, format: format, isMasked: isMasked, rejections: rejections) { entered in
                    if entered != "482019" { rejections += 1 }
                }
                Text(verbatim: "Try 482019")
                    .font(.footnote)
            }
            .padding()
        }
    }
#endif
