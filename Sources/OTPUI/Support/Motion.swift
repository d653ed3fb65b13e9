#if canImport(SwiftUI)
    import SwiftUI

    /// One step of a keyframe animation: where to go and how long to take.
    struct MotionStep: Sendable, Hashable {
        /// The value at the end of the step.
        var value: Double
        /// The step's length in seconds.
        var duration: Double
    }

    /// The keyframes of the error shake (UX F6) and the digit pop (S1).
    ///
    /// Both are empty under Reduce Motion, so the views keep their colour and
    /// message but do not move. Views play them with `keyframeAnimator` where
    /// they are drawn, so each animator works on a concrete view type.
    enum Motion {
        /// A decaying horizontal oscillation of about 0.4 s, in points.
        static func shake(reduceMotion: Bool) -> [MotionStep] {
            reduceMotion
                ? []
                : [
                    MotionStep(value: -10, duration: 0.06), MotionStep(value: 9, duration: 0.08),
                    MotionStep(value: -6, duration: 0.08), MotionStep(value: 4, duration: 0.07),
                    MotionStep(value: -2, duration: 0.06), MotionStep(value: 0, duration: 0.05),
                ]
        }

        /// A small scale-up and back as a digit lands, as a scale factor.
        static func pop(reduceMotion: Bool) -> [MotionStep] {
            reduceMotion
                ? [] : [MotionStep(value: 1.12, duration: 0.07), MotionStep(value: 1, duration: 0.1)]
        }
    }
#endif
