#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The one-time-code field: visible cells driven by one hidden, real text field (UX F1–F10).
    ///
    /// Inside ``VerificationScreen`` it is driven by a ``VerificationModel``. On
    /// its own it edits a binding and calls `onComplete` once with each complete
    /// code; count rejections in `rejections` (or set `isInvalid`) to colour and
    /// shake the cells. Or it checks its own codes with `onVerify`: dimmed while
    /// checking, green and locked when right, shaken when wrong.
    ///
    /// ```swift
    /// OTPField(code: $code, rejections: rejected) { code in submit(code) }
    /// OTPField(format: CodeFormat(length: 6)) { code in await server.accepts(code) }
    /// ```
    public struct OTPField: View {
        private enum Source {
            case model(VerificationModel)
            case standalone(StandaloneField)
            case verifying(StandaloneField, onVerify: @MainActor (String) async -> Bool)
        }

        private let source: Source

        /// Creates a field driven by a verification model, as ``VerificationScreen`` uses it.
        public init(model: VerificationModel) {
            source = .model(model)
        }

        /// Creates a field on its own, marked wrong while `isInvalid` is set.
        ///
        /// The flag is read as the verdict on each code handed to `onComplete`: set it there (even
        /// when it is already on) and every wrong code gets the error colour, a shake and the
        /// keyboard. A caller that answers later should count rejections with
        /// ``init(code:format:isMasked:rejections:rejection:language:onComplete:)`` instead.
        /// The keyboard goes away when a code is complete and comes back when it is marked wrong.
        ///
        /// - Parameters:
        ///   - code: The normalised code entered so far.
        ///   - format: The code's length, characters and grouping.
        ///   - isMasked: Shows `•` instead of the characters (UX F9).
        ///   - isInvalid: Marks the code as rejected: error colour, one shake, the next key starts over (F5, F6).
        ///   - rejection: Whether a rejected code stays until the next key (F5) or is cleared at once.
        ///   - language: The language of what assistive technology reads.
        ///   - onComplete: Called once with each complete code (F4).
        public init(
            code: Binding<String>, format: CodeFormat = .default, isMasked: Bool = false,
            isInvalid: Bool = false, rejection: RejectionBehavior = .keepDigits,
            language: TextLanguage = .preferred, onComplete: @escaping @MainActor (String) -> Void
        ) {
            source = .standalone(
                StandaloneField(
                    code: code, format: format, isMasked: isMasked, isInvalid: isInvalid, rejections: 0,
                    rejection: rejection, language: language, onComplete: onComplete))
        }

        /// Creates a field on its own of `length` digits, marked wrong while `isInvalid` is set.
        ///
        /// The form of a field that only needs a length, such as `OTPField(code: $code, length: 4)`.
        ///
        /// - Parameters:
        ///   - code: The normalised code entered so far.
        ///   - length: The number of digits, 4–8.
        ///   - isInvalid: Marks the code as rejected: error colour, one shake, the next key starts over.
        ///   - onComplete: Called once with each complete code.
        public init(
            code: Binding<String>, length: Int, isInvalid: Bool = false,
            onComplete: @escaping @MainActor (String) -> Void = { _ in }
        ) {
            self.init(
                code: code, format: CodeFormat(length: length), isInvalid: isInvalid, onComplete: onComplete)
        }

        /// Creates a field on its own that counts the caller's rejections, so every wrong code shakes.
        ///
        /// - Parameters:
        ///   - code: The normalised code entered so far.
        ///   - format: The code's length, characters and grouping.
        ///   - isMasked: Shows `•` instead of the characters (UX F9).
        ///   - rejections: How many codes the caller has rejected. Each increase marks the code
        ///     entered rejected: error colour, one shake, the next key starts over (F5, F6).
        ///   - rejection: Whether a rejected code stays until the next key (F5) or is cleared at once.
        ///   - language: The language of what assistive technology reads.
        ///   - onComplete: Called once with each complete code (F4).
        public init(
            code: Binding<String>, format: CodeFormat = .default, isMasked: Bool = false, rejections: Int,
            rejection: RejectionBehavior = .keepDigits, language: TextLanguage = .preferred,
            onComplete: @escaping @MainActor (String) -> Void
        ) {
            source = .standalone(
                StandaloneField(
                    code: code, format: format, isMasked: isMasked, isInvalid: false, rejections: rejections,
                    rejection: rejection, language: language, onComplete: onComplete))
        }

        /// Creates a field that checks its own codes: `onVerify` answers whether a complete code is right.
        ///
        /// While `onVerify` runs the cells are dimmed and read-only; a right code turns them green
        /// and locks the field (the keyboard goes away, the success haptic plays); a wrong one
        /// shakes them in the error colour, keeps them for the next key to replace (or clears them
        /// with `rejection: .clearAndRefocus`) and brings the keyboard back.
        ///
        /// - Parameters:
        ///   - code: The code entered, if the caller wants to see it; the field keeps its own otherwise.
        ///   - format: The code's length, characters and grouping.
        ///   - isMasked: Shows `•` instead of the characters (UX F9).
        ///   - rejection: What a wrong code does to the digits.
        ///   - language: The language of what assistive technology reads.
        ///   - onVerify: Checks a complete code; `true` when it is right.
        public init(
            code: Binding<String>? = nil, format: CodeFormat = .default, isMasked: Bool = false,
            rejection: RejectionBehavior = .keepDigits, language: TextLanguage = .preferred,
            onVerify: @escaping @MainActor (String) async -> Bool
        ) {
            source = .verifying(
                StandaloneField(
                    code: code ?? .constant(""), format: format, isMasked: isMasked, isInvalid: false,
                    rejections: 0, rejection: rejection, language: language, onComplete: { _ in }),
                onVerify: onVerify)
        }

        /// The field's content.
        public var body: some View {
            switch source {
            case .model(let model):
                ModelCodeField(model: model)
            case .standalone(let field):
                StandaloneCodeField(field: field, onVerify: nil)
            case .verifying(let field, let onVerify):
                StandaloneCodeField(field: field, onVerify: onVerify)
            }
        }
    }

    /// What a field on its own was created with.
    struct StandaloneField {
        var code: Binding<String>
        var format: CodeFormat
        var isMasked: Bool
        var isInvalid: Bool
        var rejections: Int
        var rejection: RejectionBehavior
        var language: TextLanguage
        var onComplete: @MainActor (String) -> Void
    }

    /// The field as the verification screen drives it: every value from the model's
    /// ``VerificationModel/codeField``, which a countdown tick leaves alone, so the text field's
    /// selection and a Paste menu survive the ticking (item 8).
    struct ModelCodeField: View {
        let model: VerificationModel

        var body: some View {
            let field = model.codeField
            let haptic = field.hapticEvent
            CodeCellsInput(
                connection: CodeInputConnection(
                    code: { model.codeField.codeText },
                    edit: { model.edit($0) },
                    focusChanged: { model.isFocused = $0 },
                    select: { model.selectCell($0) },
                    moveSelection: { model.moveSelection(by: $0) },
                    keepsKeyboard: field.keepsKeyboard,
                    kind: field.format.kind,
                    accessibilityLabel: field.accessibilityLabel,
                    accessibilityValue: field.accessibilityValue),
                cells: field.cells,
                format: field.format,
                shakeTrigger: field.shakeTrigger
            )
            .hapticFeedback(trigger: haptic) { haptic?.haptic.sensoryFeedback }
        }
    }

    /// The field on its own: a ``CodeFieldState`` keeps normalisation, submit-once,
    /// replace-after-rejection, the shake and, with `onVerify`, the verifying and verified states;
    /// the view forwards edits, the caller's format, the invalid flag and each new rejection.
    struct StandaloneCodeField: View {
        let parameters: StandaloneField
        let onVerify: (@MainActor (String) async -> Bool)?

        @State private var field: CodeFieldState
        @State private var isFocused = false

        init(field parameters: StandaloneField, onVerify: (@MainActor (String) async -> Bool)?) {
            self.parameters = parameters
            self.onVerify = onVerify
            _field = State(
                initialValue: CodeFieldState(
                    format: parameters.format, language: parameters.language,
                    rejectionBehavior: parameters.rejection))
        }

        var body: some View {
            CodeCellsInput(
                connection: CodeInputConnection(
                    code: { field.value },
                    edit: { edit($0) },
                    focusChanged: { isFocused = $0 },
                    select: { field.select($0) },
                    moveSelection: { field.moveSelection(by: $0) },
                    keepsKeyboard: field.keepsKeyboard,
                    kind: field.format.kind,
                    accessibilityLabel: field.text.fieldLabel,
                    accessibilityValue: field.accessibilityValue),
                cells: field.cells(isFocused: isFocused, isMasked: parameters.isMasked),
                format: field.format,
                shakeTrigger: field.shakeTrigger
            )
            .onChange(of: parameters.format, initial: true) { _, newFormat in
                field.setFormat(newFormat)
                write()
            }
            .onChange(of: parameters.rejection) { _, behavior in field.rejectionBehavior = behavior }
            .onChange(of: parameters.code.wrappedValue, initial: true) { _, newCode in
                if newCode != field.value { replace(with: newCode) }
            }
            .onChange(of: parameters.isInvalid, initial: true) { _, invalid in
                field.setInvalid(invalid)
                write()
            }
            // The caller's flag is read again for each code handed over: a flag kept on through two
            // wrong codes does not change, and still marks the second one wrong (item 7).
            .onChange(of: field.submissionCount) {
                field.setInvalid(parameters.isInvalid)
                write()
            }
            .onChange(of: parameters.rejections) { old, new in
                if new > old {
                    field.reject()
                    write()
                }
            }
            .hapticFeedback(.error, trigger: field.shakeTrigger)
            .hapticFeedback(.success, trigger: field.phase == .verified)
        }

        /// Hands an edit to the field state, writes the code back and passes on a complete code.
        private func edit(_ edit: TextEdit) -> TextEditOutcome {
            let (outcome, submission) = field.edit(edit)
            write()
            if let submission { submit(submission) }
            return outcome
        }

        /// The caller set the binding: its text replaces the code, normalised.
        private func replace(with text: String) {
            let submission = field.setValue(text)
            write()
            if let submission { submit(submission) }
        }

        /// Writes the code back to the caller's binding when it differs.
        private func write() {
            if parameters.code.wrappedValue != field.value { parameters.code.wrappedValue = field.value }
        }

        /// Hands a complete code to the caller, or checks it with `onVerify`.
        private func submit(_ code: String) {
            guard let onVerify else {
                parameters.onComplete(code)
                return
            }
            field.beginVerifying()
            Task { @MainActor in
                if await onVerify(code) {
                    field.verified()
                } else {
                    field.reject()
                    write()
                }
            }
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

    #Preview("OTPField, checks its own codes") {
        VerifyingFieldPreview()
    }

    #Preview("OTPField, clears a wrong code, groups of two") {
        VerifyingFieldPreview(format: CodeFormat(length: 6, groups: [2, 2, 2]), rejection: .clearAndRefocus)
            .codeSeparatorStyle(.gap)
            .preferredColorScheme(.dark)
    }

    #Preview("OTPField, four digits by length") {
        LengthFieldPreview()
    }

    /// A field that checks its own codes: 482019 is right, after a short wait.
    private struct VerifyingFieldPreview: View {
        var format = CodeFormat.default
        var rejection = RejectionBehavior.keepDigits
        @State private var code = ""

        var body: some View {
            VStack(spacing: 16) {
                OTPField(code: $code, format: format, rejection: rejection) { entered in
                    try? await Task.sleep(for: .milliseconds(600))
                    return entered == "482019"
                }
                Text(verbatim: "Try 482019 (entered: \(code))")
                    .font(.footnote)
            }
            .padding()
        }
    }

    /// A four-digit field made with a length, flagged wrong for any code but 4820.
    private struct LengthFieldPreview: View {
        @State private var code = ""
        @State private var isInvalid = false

        var body: some View {
            OTPField(code: $code, length: 4, isInvalid: isInvalid) { entered in
                isInvalid = entered != "4820"
            }
            .padding()
        }
    }
#endif
