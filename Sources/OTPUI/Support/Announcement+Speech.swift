#if canImport(SwiftUI)
    import OTPCore
    import SwiftUI

    /// The attributed-string key that sets how urgently an announcement is spoken.
    private typealias SpeechPriorityKey = AttributeScopes.AccessibilityAttributes
        .AnnouncementPriorityAttribute

    extension Announcement {
        /// Speaks this announcement to assistive technology now, with its priority: for screens
        /// built from OTPKit's parts, which post the model's ``VerificationModel/announcements``
        /// themselves.
        @MainActor
        public func post() {
            accessibilityNotification.post()
        }

        /// The notification that speaks this announcement to assistive technology, with its priority.
        var accessibilityNotification: AccessibilityNotification.Announcement {
            var text = AttributedString(self.text)
            text[SpeechPriorityKey.self] = priority.speechPriority
            return AccessibilityNotification.Announcement(text)
        }
    }

    extension Announcement.Priority {
        /// The system's speech priority: polite waits until other speech has finished; assertive
        /// interrupts it and is not cut off by the next utterance.
        fileprivate var speechPriority: SpeechPriorityKey.AnnouncementPriority {
            switch self {
            case .polite: .low
            case .assertive: .high
            }
        }
    }
#endif
