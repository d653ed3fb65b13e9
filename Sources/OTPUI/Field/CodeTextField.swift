#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// What the code field's real text field needs from its owner: the code, where edits go,
    /// and the focus and keyboard wishes.
    struct CodeInputConnection {
        /// The code as it is now; read after each edit, so the field shows the code's new value.
        var code: @MainActor () -> String
        /// Hands an edit the field asks for to the code.
        var edit: @MainActor (TextEdit) -> TextEditOutcome
        /// Reports the field's real focus: the keyboard is up.
        var focusChanged: @MainActor (Bool) -> Void
        /// A cell was tapped (F11): a filled one is selected for correction; `nil` gives that up.
        var select: @MainActor (Int?) -> Void
        /// An arrow key on a hardware keyboard moved the selection one cell left (-1) or right (+1).
        var moveSelection: @MainActor (Int) -> Void
        /// Whether the keyboard should be up: false once the code is verified.
        var keepsKeyboard: Bool
        /// Which keyboard and autofill to ask for.
        var kind: CodeFormat.Kind
        /// The field's accessibility label and value (F10); the characters themselves are never exposed.
        var accessibilityLabel: String
        var accessibilityValue: String
    }

    #if canImport(UIKit)
        import UIKit

        /// The code field's real text field on iOS: a `UITextField` whose delegate sees the exact
        /// range of every edit (UX F1, F3–F5).
        ///
        /// Every edit goes to the code through ``CodeTextFieldRules`` and the field is told no;
        /// the field then shows the code with the caret at the end, so the next edit is never
        /// ambiguous and a read-only code leaves no stray key behind. Marked text from a
        /// Japanese or Chinese keyboard is let through until it is committed. The field asks
        /// for focus once it is in a window and retries until it gets it, since a request
        /// during a push or sheet transition is often ignored; its real focus is reported, so
        /// the suggestion bar and the next-cell highlight show only with the keyboard up.
        struct CodeTextField: UIViewRepresentable {
            let connection: CodeInputConnection
            /// Changes when a tapped cell asks the field for the keyboard.
            var focusRequest = 0

            func makeCoordinator() -> Coordinator {
                Coordinator(connection: connection)
            }

            func makeUIView(context: Context) -> FocusingTextField {
                let field = FocusingTextField(frame: .zero)
                field.delegate = context.coordinator
                let arrows = context.coordinator
                field.onArrow = { step in arrows.connection.moveSelection(step) }
                field.textColor = .clear
                field.tintColor = .clear
                field.textContentType = .oneTimeCode
                // Autocorrection off keeps a typed code as it is; spell checking stays at its default,
                // since turning both off can hide the QuickType bar that carries the code (item 12).
                field.autocorrectionType = .no
                field.setContentHuggingPriority(.defaultLow, for: .horizontal)
                field.setContentCompressionResistancePriority(.defaultLow, for: .horizontal)
                let coordinator = context.coordinator
                field.addAction(
                    UIAction { [weak field] _ in
                        guard let field else { return }
                        coordinator.fieldChangedItself(field)
                    }, for: .editingChanged)
                return field
            }

            func updateUIView(_ field: FocusingTextField, context: Context) {
                context.coordinator.connection = connection
                field.keyboardType = connection.kind == .digits ? .numberPad : .asciiCapable
                field.autocapitalizationType = connection.kind == .digits ? .none : .allCharacters
                // The cells' container is the one accessibility element (F10, item 9); the text
                // field's own value (the characters) would win over a custom value if it were one.
                field.isAccessibilityElement = false
                context.coordinator.showCode(in: field)
                field.wantsFocus = connection.keepsKeyboard
                if context.coordinator.focusRequest != focusRequest {
                    // A tap on the cells asks for the keyboard as a tap on the field would, even
                    // while the owner does not hold it up (a field on its own after a complete code).
                    // On the next turn, not inside updateUIView.
                    context.coordinator.focusRequest = focusRequest
                    Task { @MainActor [weak field] in
                        guard let field, !field.isFirstResponder else { return }
                        field.becomeFirstResponder()
                    }
                }
            }

            /// The delegate: hands every edit to the code and keeps the field showing it.
            @MainActor
            final class Coordinator: NSObject, UITextFieldDelegate {
                var connection: CodeInputConnection
                var focusRequest = 0

                init(connection: CodeInputConnection) {
                    self.connection = connection
                }

                func textField(
                    _ textField: UITextField, shouldChangeCharactersIn range: NSRange,
                    replacementString string: String
                ) -> Bool {
                    let edit = TextEdit(location: range.location, length: range.length, replacement: string)
                    let letThrough = CodeTextFieldRules.shouldChange(
                        edit, isComposing: textField.markedTextRange != nil,
                        keyboardComposes: CodeTextFieldRules.keyboardComposes(
                            primaryLanguage: textField.textInputMode?.primaryLanguage),
                        apply: connection.edit)
                    if !letThrough { showCode(in: textField) }
                    return letThrough
                }

                /// An undo, a committed composition or dictation changed the text without asking.
                func fieldChangedItself(_ field: UITextField) {
                    if let edit = CodeTextFieldRules.editAfterChange(
                        fieldText: field.text ?? "", isComposing: field.markedTextRange != nil,
                        code: connection.code())
                    {
                        _ = connection.edit(edit)
                    }
                    showCode(in: field)
                }

                /// The field shows the code, with the caret at the end; marked text is left alone.
                func showCode(in field: UITextField) {
                    guard field.markedTextRange == nil else { return }
                    let code = connection.code()
                    if field.text != code { field.text = code }
                    let end = field.endOfDocument
                    if let caret = field.textRange(from: end, to: end) { field.selectedTextRange = caret }
                }

                func textFieldDidBeginEditing(_ textField: UITextField) {
                    connection.focusChanged(true)
                }

                func textFieldDidEndEditing(_ textField: UITextField) {
                    connection.focusChanged(false)
                }
            }
        }

        /// A text field that takes focus once it is in a window, retrying while a transition refuses it.
        ///
        /// It asks for focus when it arrives in a window and when the owner starts wanting the
        /// keyboard again (after a rejection, a new code); not on every update, so focus moved
        /// elsewhere on purpose (to Resend, by the user) stays there. It gives the keyboard up
        /// when the owner stops wanting it (verified, locked, expired).
        final class FocusingTextField: UITextField {
            /// Whether the field should hold the keyboard.
            var wantsFocus = false {
                didSet {
                    guard wantsFocus != oldValue else { return }
                    if wantsFocus {
                        focusWhenPossible()
                    } else if isFirstResponder {
                        // Not inside updateUIView, which sets this: on the next turn of the main
                        // actor, if the owner still does not want the keyboard (item 12).
                        Task { @MainActor [weak self] in
                            guard let self, !self.wantsFocus, self.isFirstResponder else { return }
                            self.resignFirstResponder()
                        }
                    }
                }
            }
            private var focusTask: Task<Void, Never>?
            /// Called with -1 or +1 for the left or right arrow of a hardware keyboard (F11).
            var onArrow: (@MainActor (Int) -> Void)?

            /// The left and right arrows move the code's selection instead of the hidden caret (F11);
            /// every other press goes on up the responder chain.
            override func pressesBegan(_ presses: Set<UIPress>, with event: UIPressesEvent?) {
                var handled = false
                for press in presses {
                    guard let key = press.key else { continue }
                    if key.charactersIgnoringModifiers == UIKeyCommand.inputLeftArrow {
                        onArrow?(-1)
                        handled = true
                    } else if key.charactersIgnoringModifiers == UIKeyCommand.inputRightArrow {
                        onArrow?(1)
                        handled = true
                    }
                }
                if !handled { super.pressesBegan(presses, with: event) }
            }

            override func didMoveToWindow() {
                super.didMoveToWindow()
                focusWhenPossible()
            }

            /// Asks for focus on the next turns of the main actor, about every 100 ms for a second,
            /// until it is given (a push or sheet transition refuses it while it runs).
            func focusWhenPossible() {
                guard wantsFocus, window != nil, !isFirstResponder, focusTask == nil else { return }
                focusTask = Task { @MainActor [weak self] in
                    for _ in 0..<10 {
                        try? await Task.sleep(for: .milliseconds(100))
                        guard let self, self.wantsFocus, self.window != nil else { break }
                        if self.isFirstResponder || self.becomeFirstResponder() { break }
                    }
                    self?.focusTask = nil
                }
            }
        }
    #endif

    /// The code field's real text field where UIKit is missing (macOS): a SwiftUI `TextField`
    /// whose whole new text is turned into the edit it was (``TextEdit/difference(from:to:)``).
    struct BoundCodeTextField: View {
        let connection: CodeInputConnection
        /// Changes when a tap on the cells asks for the keyboard (F8, F11).
        var focusRequest = 0
        @FocusState private var isFocused: Bool

        var body: some View {
            TextField(
                connection.accessibilityLabel,
                text: Binding(
                    get: { @MainActor in connection.code() },
                    set: { @MainActor newText in
                        if let edit = TextEdit.difference(from: connection.code(), to: newText) {
                            _ = connection.edit(edit)
                        }
                    })
            )
            .oneTimeCodeInput(connection.kind)
            .focused($isFocused)
            .foregroundStyle(Color.clear)
            .opacity(0.02)
            .accessibilityLabel(Text(connection.accessibilityLabel))
            .accessibilityValue(Text(connection.accessibilityValue))
            .onAppear { isFocused = connection.keepsKeyboard }
            .onChange(of: isFocused) { _, focused in connection.focusChanged(focused) }
            // The field takes the keyboard when the code arrives, not only if it had arrived when
            // the field appeared (V11), and gives it up when the screen no longer wants it.
            .onChange(of: connection.keepsKeyboard) { _, keeps in isFocused = keeps }
            .onChange(of: focusRequest) { _, _ in if connection.keepsKeyboard { isFocused = true } }
            // A hardware keyboard's arrows move the code's selection (F11), never a hidden caret.
            .onKeyPress(.leftArrow) {
                connection.moveSelection(-1)
                return .handled
            }
            .onKeyPress(.rightArrow) {
                connection.moveSelection(1)
                return .handled
            }
        }
    }
#endif
