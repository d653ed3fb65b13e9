#if canImport(SwiftUI)
    import SwiftUI

    /// The PIN pad's and keypad's sizes, set for every pad inside a view with `.pinPadStyle(_:)`.
    ///
    /// Every length grows with Dynamic Type; colours and corner radius come from ``OTPTheme``.
    public struct PinPadStyle: Sendable, Hashable {
        /// The diameter of a dot at the default text size.
        public var dotDiameter: CGFloat
        /// The space between two dots; `nil` for twice the theme's spacing.
        public var dotSpacing: CGFloat?
        /// The space between the dots and the keypad; `nil` for five times the theme's spacing.
        public var padSpacing: CGFloat?
        /// The height of a key at the default text size.
        public var keyHeight: CGFloat
        /// The space between two keys of a row; `nil` for three times the theme's spacing.
        public var keySpacing: CGFloat?
        /// The space between two rows of keys; `nil` for one and a half times the theme's spacing.
        public var keyRowSpacing: CGFloat?

        /// Creates a style; every argument left out keeps the standard look.
        public init(
            dotDiameter: CGFloat = 14, dotSpacing: CGFloat? = nil, padSpacing: CGFloat? = nil,
            keyHeight: CGFloat = 60, keySpacing: CGFloat? = nil, keyRowSpacing: CGFloat? = nil
        ) {
            self.dotDiameter = dotDiameter
            self.dotSpacing = dotSpacing
            self.padSpacing = padSpacing
            self.keyHeight = keyHeight
            self.keySpacing = keySpacing
            self.keyRowSpacing = keyRowSpacing
        }

        /// The standard look.
        public static let standard = PinPadStyle()
    }

    private struct PinPadStyleKey: EnvironmentKey {
        static let defaultValue = PinPadStyle.standard
    }

    extension EnvironmentValues {
        /// The sizes OTPKit's PIN pads and keypads draw with; ``PinPadStyle/standard`` unless overridden.
        public var pinPadStyle: PinPadStyle {
            get { self[PinPadStyleKey.self] }
            set { self[PinPadStyleKey.self] = newValue }
        }
    }

    extension View {
        /// Draws OTPKit's PIN pads and keypads inside this view with other sizes.
        public func pinPadStyle(_ style: PinPadStyle) -> some View {
            environment(\.pinPadStyle, style)
        }
    }
#endif
