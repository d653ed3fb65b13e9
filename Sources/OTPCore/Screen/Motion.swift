/// One step of a keyframe animation: where to go and how long to take.
public struct MotionStep: Sendable, Hashable {
    /// The value at the end of the step.
    public var value: Double
    /// The step's length in seconds.
    public var duration: Double

    /// Creates a step.
    public init(value: Double, duration: Double) {
        self.value = value
        self.duration = duration
    }
}

/// The keyframes of the error shake (UX F6) and the digit pop (S1), for every renderer.
///
/// Both are empty under Reduce Motion: the colour and the message remain, nothing moves.
public enum Motion {
    /// A decaying horizontal oscillation of about 0.4 s, in points.
    public static func shake(reduceMotion: Bool) -> [MotionStep] {
        reduceMotion
            ? []
            : [
                MotionStep(value: -10, duration: 0.06), MotionStep(value: 9, duration: 0.08),
                MotionStep(value: -6, duration: 0.08), MotionStep(value: 4, duration: 0.07),
                MotionStep(value: -2, duration: 0.06), MotionStep(value: 0, duration: 0.05),
            ]
    }

    /// A small scale-up and back as a digit lands, as a scale factor.
    public static func pop(reduceMotion: Bool) -> [MotionStep] {
        reduceMotion ? [] : [MotionStep(value: 1.12, duration: 0.07), MotionStep(value: 1, duration: 0.1)]
    }

    /// The highlighted cell's scale: a little larger, or under Reduce Motion not scaled at all,
    /// so nothing grows as the highlight moves (item 12).
    public static func cellScale(isNext: Bool, reduceMotion: Bool) -> Double {
        isNext && !reduceMotion ? 1.04 : 1
    }

    /// The cell outline's width in points: 1, 2 on the highlighted cell, 3 on a cell selected to
    /// correct (F11), so the selection reads without colour.
    public static func outlineWidth(isNext: Bool, isSelected: Bool) -> Double {
        isSelected ? 3 : isNext ? 2 : 1
    }

    /// How the toast comes and goes (V6): sliding from the top edge while fading, or under
    /// Reduce Motion only fading.
    public static func toast(reduceMotion: Bool) -> ToastMotion {
        reduceMotion ? .fade : .slideAndFade
    }

    /// The whole length of a list of steps, in seconds.
    public static func duration(of steps: [MotionStep]) -> Double {
        steps.reduce(0) { $0 + $1.duration }
    }
}

/// How the toast appears and disappears.
public enum ToastMotion: Sendable, Hashable {
    /// Slides in from the top edge while fading in.
    case slideAndFade
    /// Only fades (Reduce Motion).
    case fade
}

/// Sizes every rendering of the screen keeps (UX V14).
public enum ScreenMetrics {
    /// The least height of a button (Try again, Resend), in points: Apple's smallest tap target.
    public static let minimumTapTarget = 44.0
}
