// Posting accessibility notifications.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check: the module is never run.

/// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibility>.
// `struct UIAccessibility`, a namespace for UIKit's accessibility symbols.
public struct UIAccessibility {
    /// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibility/post(notification:argument:)>.
    @MainActor public static func post(notification: UIAccessibility.Notification, argument: Any?) {}

    /// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibility/notification>.
    // `struct Notification`, a typed `UInt32` constant.
    public struct Notification: RawRepresentable, Hashable, Sendable {
        /// The notification's value.
        public var rawValue: UInt32

        /// Creates a notification from its value.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibility/notification/announcement>.
        @available(iOS 4.0, *)
        nonisolated public static let announcement = UIAccessibility.Notification(rawValue: 1008)

        /// Declared as on <https://developer.apple.com/documentation/uikit/uiaccessibility/notification/layoutchanged>.
        nonisolated public static let layoutChanged = UIAccessibility.Notification(rawValue: 1001)
    }
}
