import Foundation

/// A colour in sRGB, components from 0 to 1.
public struct RGBColor: Sendable, Hashable {
    /// Red.
    public var red: Double
    /// Green.
    public var green: Double
    /// Blue.
    public var blue: Double

    /// Creates a colour.
    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// White, the light appearance's screen background.
    public static let white = RGBColor(red: 1, green: 1, blue: 1)
    /// Black, the dark appearance's screen background.
    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// The relative luminance WCAG 2 defines, from 0 (black) to 1 (white).
    public var relativeLuminance: Double {
        func linear(_ value: Double) -> Double {
            value <= 0.040_45 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The WCAG 2 contrast ratio of two colours, from 1 to 21.
    public static func contrast(_ first: RGBColor, _ second: RGBColor) -> Double {
        let (lighter, darker) = (
            max(first.relativeLuminance, second.relativeLuminance),
            min(first.relativeLuminance, second.relativeLuminance)
        )
        return (lighter + 0.05) / (darker + 0.05)
    }
}

/// The screen's colours for one appearance, as values every renderer can read and tests can
/// hold to WCAG contrast (UX V14: cell borders 3:1, text 4.5:1; an Increase Contrast palette).
public struct PaletteColors: Sendable, Hashable {
    /// Ordinary text.
    public var label: RGBColor
    /// Secondary text.
    public var secondaryLabel: RGBColor
    /// The cells' fill.
    public var surface: RGBColor
    /// The highlight, buttons.
    public var accent: RGBColor
    /// Errors.
    public var danger: RGBColor
    /// Success.
    public var success: RGBColor
    /// The outline of an empty cell.
    public var border: RGBColor
    /// The screen's background the palette is drawn on.
    public var background: RGBColor

    /// OTPKit's light palette.
    public static let light = PaletteColors(
        label: RGBColor(red: 0.09, green: 0.09, blue: 0.11),
        secondaryLabel: RGBColor(red: 0.43, green: 0.43, blue: 0.47),
        surface: RGBColor(red: 0.95, green: 0.95, blue: 0.97),
        accent: RGBColor(red: 0.0, green: 0.38, blue: 0.85),
        danger: RGBColor(red: 0.82, green: 0.15, blue: 0.16),
        success: RGBColor(red: 0.09, green: 0.46, blue: 0.24),
        border: RGBColor(red: 0.5, green: 0.5, blue: 0.54),
        background: .white)

    /// OTPKit's dark palette.
    public static let dark = PaletteColors(
        label: RGBColor(red: 0.96, green: 0.96, blue: 0.97),
        secondaryLabel: RGBColor(red: 0.63, green: 0.63, blue: 0.67),
        surface: RGBColor(red: 0.14, green: 0.14, blue: 0.16),
        accent: RGBColor(red: 0.3, green: 0.62, blue: 1.0),
        danger: RGBColor(red: 1.0, green: 0.43, blue: 0.41),
        success: RGBColor(red: 0.33, green: 0.82, blue: 0.5),
        border: RGBColor(red: 0.45, green: 0.45, blue: 0.49),
        background: .black)

    /// The light palette under Increase Contrast.
    public static let lightIncreasedContrast = PaletteColors(
        label: .black,
        secondaryLabel: RGBColor(red: 0.25, green: 0.25, blue: 0.28),
        surface: RGBColor(red: 0.95, green: 0.95, blue: 0.97),
        accent: RGBColor(red: 0.0, green: 0.3, blue: 0.7),
        danger: RGBColor(red: 0.62, green: 0.05, blue: 0.07),
        success: RGBColor(red: 0.0, green: 0.36, blue: 0.16),
        border: RGBColor(red: 0.3, green: 0.3, blue: 0.33),
        background: .white)

    /// The dark palette under Increase Contrast.
    public static let darkIncreasedContrast = PaletteColors(
        label: .white,
        secondaryLabel: RGBColor(red: 0.82, green: 0.82, blue: 0.85),
        surface: RGBColor(red: 0.14, green: 0.14, blue: 0.16),
        accent: RGBColor(red: 0.55, green: 0.78, blue: 1.0),
        danger: RGBColor(red: 1.0, green: 0.6, blue: 0.58),
        success: RGBColor(red: 0.5, green: 0.92, blue: 0.62),
        border: RGBColor(red: 0.72, green: 0.72, blue: 0.76),
        background: .black)
}
