/// The phase of the verification screen (UX F7).
public enum VerificationPhase: String, Sendable, Hashable, CaseIterable {
    /// Nothing entered.
    case idle
    /// Some characters entered.
    case filling
    /// A complete code is being checked: cells dimmed, input read-only.
    case verifying
    /// The code was right: success colour, input read-only.
    case verified
    /// The code was wrong: digits stay in the error colour until the next key.
    case invalid
    /// The code's lifetime passed; a new code is needed.
    case expired
    /// No attempts left: cells disabled, Resend pointed to.
    case locked
}

/// The colour role of a piece of text or a cell; the theme turns it into a colour.
public enum ColorRole: String, Sendable, Hashable {
    /// Ordinary text.
    case neutral
    /// Work in progress, shown dimmed.
    case progress
    /// Something went wrong.
    case error
    /// Something succeeded.
    case success
    /// Not available for input.
    case disabled
}

/// A line of status text under the cells, with its colour role.
public struct StatusMessage: Sendable, Hashable {
    /// The sentence shown.
    public var text: String
    /// How it is coloured.
    public var role: ColorRole

    /// Creates a status message.
    public init(_ text: String, role: ColorRole) {
        self.text = text
        self.role = role
    }
}

/// One visible cell of the code field.
public struct CodeCell: Sendable, Hashable, Identifiable {
    /// The cell's position, from 0.
    public var id: Int
    /// What the cell shows: a character, `•` in masked mode, or an empty string.
    public var text: String
    /// Whether this is the cell the next key goes to and should be highlighted (F8, F11).
    public var isNext: Bool
    /// The cell's colour role (F7).
    public var role: ColorRole
    /// Whether the user selected this cell to correct it, so the next key replaces it (F11).
    public var isSelected: Bool

    /// Creates a cell.
    public init(id: Int, text: String, isNext: Bool, role: ColorRole, isSelected: Bool = false) {
        self.id = id
        self.text = text
        self.isNext = isNext
        self.role = role
        self.isSelected = isSelected
    }
}

/// A haptic the screen should play.
public enum Haptic: String, Sendable, Hashable {
    /// A key press (K1).
    case selection
    /// A small pop as a suggested digit lands (S1).
    case pop
    /// A rejected or expired code (F6).
    case error
    /// A verified code (V8).
    case success
}

/// One request to play a haptic; a new serial each time, so equal haptics still trigger.
public struct HapticEvent: Sendable, Hashable {
    /// Which haptic.
    public var haptic: Haptic
    /// Increases with every event.
    public var serial: Int

    /// Creates a haptic event.
    public init(_ haptic: Haptic, serial: Int) {
        self.haptic = haptic
        self.serial = serial
    }
}

/// A sentence for assistive technology to speak.
public struct Announcement: Sendable, Hashable {
    /// How urgently it is spoken.
    public enum Priority: String, Sendable, Hashable {
        /// After what is being spoken.
        case polite
        /// Interrupting what is being spoken.
        case assertive
    }

    /// The sentence.
    public var text: String
    /// How urgently it is spoken.
    public var priority: Priority
    /// Increases with every announcement.
    public var serial: Int

    /// Creates an announcement.
    public init(_ text: String, priority: Priority, serial: Int) {
        self.text = text
        self.priority = priority
        self.serial = serial
    }
}

/// A short confirmation shown over the screen for about two seconds (V6).
public struct Toast: Sendable, Hashable {
    /// The sentence.
    public var text: String
    /// Increases with every toast.
    public var serial: Int

    /// Creates a toast.
    public init(_ text: String, serial: Int) {
        self.text = text
        self.serial = serial
    }
}
