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
#endif
