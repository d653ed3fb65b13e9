// Apps and scenes, for the example app.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

/// Declared as on <https://developer.apple.com/documentation/swiftui/app>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol App {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/app/body-swift.associatedtype>.
    associatedtype Body: Scene

    /// Declared as on <https://developer.apple.com/documentation/swiftui/app/body-swift.property>.
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/app/init()>.
    @MainActor @preconcurrency init()
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension App {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/app/main()>.
    @MainActor @preconcurrency public static func main() {}
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/scene>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@MainActor @preconcurrency public protocol Scene {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/scene/body-swift.associatedtype>.
    associatedtype Body: Scene

    /// Declared as on <https://developer.apple.com/documentation/swiftui/scene/body-swift.property>.
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/scenebuilder>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@resultBuilder public struct SceneBuilder {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/scenebuilder/buildblock(_:)>.
    // (the single-scene overload)
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: Scene { content }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/windowgroup>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct WindowGroup<Content>: Scene where Content: View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/windowgroup/init(content:)>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    // The stub keeps nothing: the scene is never built, and the closure is type-checked where it is written.
    nonisolated public init(@ViewBuilder content: () -> Content) {}

    public var body: WindowGroup<Content> { self }
}
