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

            /// A palette from OTPCore's colour values (``PaletteColors``), whose contrast the
            /// tests hold to WCAG (UX V14).
            public init(_ colors: PaletteColors) {
                func color(_ rgb: RGBColor) -> Color {
                    Color(.sRGB, red: rgb.red, green: rgb.green, blue: rgb.blue)
                }
                self.init(
                    label: color(colors.label), secondaryLabel: color(colors.secondaryLabel),
                    surface: color(colors.surface), accent: color(colors.accent),
                    danger: color(colors.danger),
                    success: color(colors.success), border: color(colors.border))
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
        /// The colours in light appearance under Increase Contrast.
        public var lightIncreasedContrast: Palette
        /// The colours in dark appearance under Increase Contrast.
        public var darkIncreasedContrast: Palette
        /// The corner radius of cells, keys, bars and the toast.
        public var cornerRadius: CGFloat
        /// The base spacing between elements; larger gaps are multiples of it.
        public var spacing: CGFloat

        /// Creates a theme; without palettes for Increase Contrast it uses the ordinary ones there.
        public init(
            light: Palette, dark: Palette, lightIncreasedContrast: Palette? = nil,
            darkIncreasedContrast: Palette? = nil, cornerRadius: CGFloat = 10, spacing: CGFloat = 8
        ) {
            self.light = light
            self.dark = dark
            self.lightIncreasedContrast = lightIncreasedContrast ?? light
            self.darkIncreasedContrast = darkIncreasedContrast ?? dark
            self.cornerRadius = cornerRadius
            self.spacing = spacing
        }

        /// The palette for an appearance.
        public func palette(for scheme: ColorScheme) -> Palette {
            palette(for: scheme, contrast: .standard)
        }

        /// The palette for an appearance and the user's contrast setting (Increase Contrast, V14).
        public func palette(for scheme: ColorScheme, contrast: ColorSchemeContrast) -> Palette {
            switch (scheme, contrast) {
            case (.dark, .increased): darkIncreasedContrast
            case (.dark, _): dark
            case (_, .increased): lightIncreasedContrast
            default: light
            }
        }

        /// OTPKit's default look: empty cells' borders at 3:1 or more, and palettes for Increase
        /// Contrast (V14); the values are OTPCore's ``PaletteColors``.
        public static let standard = OTPTheme(
            light: Palette(.light), dark: Palette(.dark),
            lightIncreasedContrast: Palette(.lightIncreasedContrast),
            darkIncreasedContrast: Palette(.darkIncreasedContrast))
    }
#endif
