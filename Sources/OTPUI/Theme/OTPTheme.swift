#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The look of OTPKit's views: colour roles for light and dark, corner radius and spacing.
    public struct OTPTheme: Sendable {
        /// The colours for one appearance.
        public struct Palette: Sendable {
            /// Ordinary text and entered characters.
            public var label: Color
            /// Secondary text, and dimmed or disabled content.
            public var secondaryLabel: Color
            /// The fill behind cells, keys and the suggestion bar.
            public var surface: Color
            /// The highlight of the next cell and the colour of actions.
            public var accent: Color
            /// Errors: a wrong or expired code, a PIN in error.
            public var danger: Color
            /// Success: a verified code.
            public var success: Color
            /// The outline of cells and dots.
            public var border: Color

            /// Creates a palette.
            public init(
                label: Color, secondaryLabel: Color, surface: Color, accent: Color, danger: Color,
                success: Color,
                border: Color
            ) {
                self.label = label
                self.secondaryLabel = secondaryLabel
                self.surface = surface
                self.accent = accent
                self.danger = danger
                self.success = success
                self.border = border
            }

            /// The colour for one of OTPCore's colour roles.
            public func color(for role: ColorRole) -> Color {
                switch role {
                case .neutral: label
                case .progress, .disabled: secondaryLabel
                case .error: danger
                case .success: success
                }
            }

            /// The outline for a cell: the accent on the next cell, otherwise the role's colour or the border.
            public func outline(for role: ColorRole, isNext: Bool) -> Color {
                if isNext { return accent }
                switch role {
                case .neutral, .progress, .disabled: return border
                case .error: return danger
                case .success: return success
                }
            }
        }

        /// The colours in light appearance.
        public var light: Palette
        /// The colours in dark appearance.
        public var dark: Palette
        /// The corner radius of cells, keys, bars and the toast.
        public var cornerRadius: CGFloat
        /// The base spacing between elements; larger gaps are multiples of it.
        public var spacing: CGFloat

        /// Creates a theme.
        public init(light: Palette, dark: Palette, cornerRadius: CGFloat = 10, spacing: CGFloat = 8) {
            self.light = light
            self.dark = dark
            self.cornerRadius = cornerRadius
            self.spacing = spacing
        }

        /// The palette for an appearance.
        public func palette(for scheme: ColorScheme) -> Palette {
            switch scheme {
            case .dark: dark
            default: light
            }
        }

        /// OTPKit's default look.
        public static let standard = OTPTheme(
            light: Palette(
                label: Color(.sRGB, red: 0.09, green: 0.09, blue: 0.11),
                secondaryLabel: Color(.sRGB, red: 0.43, green: 0.43, blue: 0.47),
                surface: Color(.sRGB, red: 0.95, green: 0.95, blue: 0.97),
                accent: Color(.sRGB, red: 0.0, green: 0.42, blue: 0.9),
                danger: Color(.sRGB, red: 0.82, green: 0.15, blue: 0.16),
                success: Color(.sRGB, red: 0.09, green: 0.55, blue: 0.28),
                border: Color(.sRGB, red: 0.8, green: 0.8, blue: 0.84)),
            dark: Palette(
                label: Color(.sRGB, red: 0.96, green: 0.96, blue: 0.97),
                secondaryLabel: Color(.sRGB, red: 0.63, green: 0.63, blue: 0.67),
                surface: Color(.sRGB, red: 0.14, green: 0.14, blue: 0.16),
                accent: Color(.sRGB, red: 0.3, green: 0.62, blue: 1.0),
                danger: Color(.sRGB, red: 1.0, green: 0.43, blue: 0.41),
                success: Color(.sRGB, red: 0.33, green: 0.82, blue: 0.5),
                border: Color(.sRGB, red: 0.3, green: 0.3, blue: 0.34)))
    }
#endif
