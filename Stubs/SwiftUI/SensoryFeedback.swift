// Haptic and audio feedback.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Every modifier returns the view unchanged: the module is only
// type-checked, never run.

/// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct SensoryFeedback: Equatable, Hashable, Sendable {
    private let id: Int

    /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/success>.
    public static let success = SensoryFeedback(id: 0)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/error>.
    public static let error = SensoryFeedback(id: 1)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/selection>.
    public static let selection = SensoryFeedback(id: 2)

    /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/weight>.
    public struct Weight: Equatable, Sendable {
        private let id: Int
        /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/weight/light>.
        public static let light = Weight(id: 0)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/weight/medium>.
        public static let medium = Weight(id: 1)
        /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/weight/heavy>.
        public static let heavy = Weight(id: 2)
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/sensoryfeedback/impact(weight:intensity:)>.
    public static func impact(
        weight: SensoryFeedback.Weight = .medium, intensity: Double = 1.0
    ) -> SensoryFeedback {
        SensoryFeedback(id: 3)
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/sensoryfeedback(_:trigger:)>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func sensoryFeedback<T>(_ feedback: SensoryFeedback, trigger: T) -> some View
    where T: Equatable {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/sensoryfeedback(_:trigger:condition:)>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func sensoryFeedback<T>(
        _ feedback: SensoryFeedback, trigger: T, condition: @escaping (T, T) -> Bool
    ) -> some View where T: Equatable {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/sensoryfeedback(trigger:_:)>.
    // (the overload whose closure takes no arguments)
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func sensoryFeedback<T>(
        trigger: T, _ feedback: @escaping () -> SensoryFeedback?
    ) -> some View
    where T: Equatable {
        self
    }
}
