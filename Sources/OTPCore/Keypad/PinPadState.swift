/// The PIN pad's behaviour: dots over a keypad (UX P1).
public struct PinPadState: Sendable, Hashable {
    /// The PIN's length, clamped to 4–8.
    public private(set) var length: Int
    /// Whether a biometric action was given; only then the biometric key appears.
    public private(set) var biometric: KeypadAccessory
    /// The sentences, in the pad's language.
    public let text: ScreenText
    /// The last announcement for assistive technology: the count after each key, politely (P1).
    public private(set) var announcement: Announcement?
    private var serial = 0
    /// Whether the pad is turned off: dots dimmed, keys disabled.
    public var isDisabled = false
    private var input: KeypadInput
    private var errorDetector = ErrorTransitionDetector()
    /// Changes once per completed PIN; the view reads the caller's error flag again when it changes.
    public private(set) var completionCount = 0
    /// Whether a PIN was completed and the caller's flag has not been read since.
    private var awaitingVerdict = false
    /// Changes once per transition into the error state: shake the dots.
    public private(set) var shakeTrigger = 0
    /// Whether the dots show the error state.
    public private(set) var isError = false
    /// The delete key's accessibility label; `nil` for "Delete" in the pad's language.
    public var deleteLabel: String?

    /// Creates a pad; pass a biometric label and symbol only when a biometric action exists.
    ///
    /// - Parameters:
    ///   - length: The PIN's length, clamped to 4–8.
    ///   - initialValue: The digits to start with; anything but ASCII digits is removed and the
    ///     rest cut to the length.
    ///   - biometricLabel: The biometric key's accessibility label; `nil` for no biometric key.
    ///   - biometricImage: The biometric key's symbol.
    ///   - deleteLabel: The delete key's accessibility label; `nil` for "Delete" in the language.
    ///   - language: The language of what assistive technology reads.
    public init(
        length: Int = 6, initialValue: String = "", biometricLabel: String? = nil,
        biometricImage: String = "faceid", deleteLabel: String? = nil, language: TextLanguage = .english
    ) {
        self.length = Self.clamp(length)
        self.input = KeypadInput(value: Self.digits(of: initialValue), maxLength: self.length)
        self.biometric = Self.accessory(label: biometricLabel, image: biometricImage)
        self.deleteLabel = deleteLabel
        self.text = ScreenText(language)
    }

    private static func digits(of text: String) -> String {
        String(text.filter { $0.isASCII && $0.isNumber })
    }

    /// Takes the caller's current length and biometric key, which may change after creation.
    ///
    /// A new length drops the digits entered (they belong to a PIN of the old length); a
    /// new biometric key keeps them.
    public mutating func configure(length: Int, biometricLabel: String?, biometricImage: String = "faceid") {
        let length = Self.clamp(length)
        if length != self.length {
            self.length = length
            input = KeypadInput(maxLength: length)
        }
        biometric = Self.accessory(label: biometricLabel, image: biometricImage)
    }

    private static func clamp(_ length: Int) -> Int {
        min(max(length, CodeFormat.minimumLength), CodeFormat.maximumLength)
    }

    private static func accessory(label: String?, image: String) -> KeypadAccessory {
        guard let label else { return .none }
        return .biometric(label: label, systemImage: image)
    }

    /// What assistive technology reads for a key, in the pad's language (or the caller's delete label).
    public func accessibilityLabel(for key: KeypadKey) -> String {
        if key == .delete, let deleteLabel { return deleteLabel }
        return key.accessibilityLabel(in: text)
    }

    /// The dots row's accessibility label, such as "Passcode".
    public var dotsAccessibilityLabel: String { text.pinLabel }

    /// The digits entered.
    public var value: String { input.value }

    /// The keypad's rows, with the biometric key only when there is an action for it.
    public var rows: [[KeypadKey]] { KeypadLayout.rows(accessory: biometric) }

    /// Which dots are filled.
    public var dots: [Bool] { (0..<length).map { $0 < input.value.count } }

    /// The dots row's accessibility value, such as "3 of 6 entered".
    public var dotsAccessibilityValue: String {
        let value = text.pinValue(count: input.value.count, length: length)
        return isError ? value + ". " + text.string(.pinRejected) : value
    }

    /// The dots row's accessibility value from the caller's label for (entered, length), or the
    /// pad's own ("3 of 6 entered") without one.
    public func dotsAccessibilityValue(label: ((_ entered: Int, _ length: Int) -> String)?) -> String {
        label?(input.value.count, length) ?? dotsAccessibilityValue
    }

    /// Whether the delete key is enabled.
    public var isDeleteEnabled: Bool { !isDisabled && input.isDeleteEnabled }

    /// Whether a key is enabled.
    public func isEnabled(_ key: KeypadKey) -> Bool {
        !isDisabled && input.isEnabled(key)
    }

    /// The dots' colour role: error, dimmed while disabled, or neutral.
    public var dotRole: ColorRole {
        if isError { return .error }
        return isDisabled ? .disabled : .neutral
    }

    /// Replaces the value from outside (a binding), keeping only digits and the length.
    public mutating func setValue(_ newValue: String) {
        input = KeypadInput(value: Self.digits(of: newValue), maxLength: length)
    }

    /// Applies a key press; a digit after an error starts a new PIN.
    public mutating func press(_ key: KeypadKey) -> KeypadInput.Outcome {
        guard !isDisabled else { return .ignored }
        if isError, case .digit = key {
            input.clear()
            setError(false)
        }
        let outcome = input.press(key)
        if case .completed = outcome {
            completionCount += 1
            awaitingVerdict = true
        }
        switch outcome {
        case .changed, .completed:
            serial += 1
            announcement = Announcement(dotsAccessibilityValue, priority: .polite, serial: serial)
        case .ignored, .biometric:
            break
        }
        return outcome
    }

    /// Turns the error state on or off; returns whether the dots should shake now.
    ///
    /// The flag read after a PIN was completed is that PIN's verdict: on means rejected even when
    /// the caller kept it on from the last PIN, so each wrong PIN shakes (the view reads the flag
    /// again when ``completionCount`` changes).
    @discardableResult
    public mutating func setError(_ error: Bool) -> Bool {
        let isVerdict = awaitingVerdict
        awaitingVerdict = false
        isError = error
        let shakes = errorDetector.update(isError: error) || (error && isVerdict)
        if shakes {
            shakeTrigger += 1
            // Said, not only shown in red: with Reduce Motion the colour would be all there is.
            serial += 1
            announcement = Announcement(text.string(.pinRejected), priority: .assertive, serial: serial)
        }
        return shakes
    }

    /// Empties the PIN.
    public mutating func clear() {
        input.clear()
    }
}

/// Detects transitions into an error state, so the shake and haptic play once per transition.
public struct ErrorTransitionDetector: Sendable, Hashable {
    private var wasError = false

    /// Creates a detector that starts out of error.
    public init() {}

    /// Records the current state; returns `true` only when it turned from no error to error.
    public mutating func update(isError: Bool) -> Bool {
        defer { wasError = isError }
        return isError && !wasError
    }
}
