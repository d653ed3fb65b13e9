#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    extension Haptic {
        /// The system feedback that plays this haptic.
        var sensoryFeedback: SensoryFeedback {
            switch self {
            case .selection: .selection
            case .pop: .impact(weight: .light, intensity: 0.6)
            case .error: .error
            case .success: .success
            }
        }
    }

    extension View {
        /// Plays a haptic each time `trigger` changes; on visionOS, where `sensoryFeedback` needs
        /// visionOS 26, only from that release on, so an app for older visionOS still builds.
        @ViewBuilder
        func hapticFeedback<T: Equatable>(_ feedback: SensoryFeedback, trigger: T) -> some View {
            #if os(visionOS)
                if #available(visionOS 26.0, *) {
                    sensoryFeedback(feedback, trigger: trigger)
                } else {
                    self
                }
            #else
                sensoryFeedback(feedback, trigger: trigger)
            #endif
        }

        /// Plays the haptic `feedback` returns each time `trigger` changes; guarded on visionOS as above.
        @ViewBuilder
        func hapticFeedback<T: Equatable>(
            trigger: T, _ feedback: @escaping () -> SensoryFeedback?
        ) -> some View {
            #if os(visionOS)
                if #available(visionOS 26.0, *) {
                    sensoryFeedback(trigger: trigger, feedback)
                } else {
                    self
                }
            #else
                sensoryFeedback(trigger: trigger, feedback)
            #endif
        }
    }
#endif
