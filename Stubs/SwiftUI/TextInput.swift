// Text input traits. On Apple's SDKs the keyboard type and the content type take
// UIKit (iOS) or AppKit (macOS) types, so they are declared inside
// `#if canImport(UIKit)` / `#elseif os(macOS)`. On Linux the UIKit branch is
// compiled against the UIKit stub (Stubs/UIKit); the AppKit branch never is.
// See README.md.

#if canImport(UIKit)
    import UIKit

    @available(iOS 13.0, tvOS 13.0, *)
    extension View {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/view/keyboardtype(_:)>.
        nonisolated public func keyboardType(_ type: UIKeyboardType) -> some View { self }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/view/textcontenttype(_:)-ufdv>.
        // (the `UITextContentType` overload)
        nonisolated public func textContentType(_ textContentType: UITextContentType?) -> some View { self }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/view/textinputautocapitalization(_:)>.
        @available(iOS 15.0, *)
        nonisolated public func textInputAutocapitalization(
            _ autocapitalization: TextInputAutocapitalization?
        )
            -> some View
        { self }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/textinputautocapitalization>.
    @available(iOS 15.0, *)
    public struct TextInputAutocapitalization: Sendable {
        private let id: Int
        /// Declared as on <https://developer.apple.com/documentation/swiftui/textinputautocapitalization/never>.
        public static let never = TextInputAutocapitalization(id: 0)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/textinputautocapitalization/characters>.
        public static let characters = TextInputAutocapitalization(id: 1)
    }
#elseif os(macOS)
    import AppKit

    @available(macOS 11.0, *)
    extension View {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/view/textcontenttype(_:)>.
        // (the `NSTextContentType` overload)
        nonisolated public func textContentType(_ textContentType: NSTextContentType?) -> some View { self }
    }
#endif

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/autocorrectiondisabled(_:)>.
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 8.0, *)
    nonisolated public func autocorrectionDisabled(_ disable: Bool = true) -> some View { self }
}
