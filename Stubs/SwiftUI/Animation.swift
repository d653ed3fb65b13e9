// Animations, transitions and keyframes.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/animation>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Animation: Equatable, Sendable {
    private let name: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/animation/default>.
    public static let `default` = Animation(name: "default")

    /// Declared as on <https://developer.apple.com/documentation/swiftui/animation/easeout(duration:)>.
    public static func easeOut(duration: TimeInterval) -> Animation { Animation(name: "easeOut") }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/animation/easeinout(duration:)>.
    public static func easeInOut(duration: TimeInterval) -> Animation { Animation(name: "easeInOut") }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/animation/snappy>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public static var snappy: Animation { Animation(name: "snappy") }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/anytransition>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct AnyTransition: Sendable {
    private let name: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/anytransition/opacity>.
    public static let opacity = AnyTransition(name: "opacity")

    /// Declared as on <https://developer.apple.com/documentation/swiftui/anytransition/move(edge:)>.
    public static func move(edge: Edge) -> AnyTransition { AnyTransition(name: "move") }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/anytransition/combined(with:)>.
    public func combined(with other: AnyTransition) -> AnyTransition { self }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyframes>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public protocol Keyframes<Value> {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframes/value>.
    associatedtype Value
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontent>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public protocol KeyframeTrackContent<Value> {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontent/value>.
    associatedtype Value: Animatable
}

/// The opaque results of the stub's keyframe builders.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
struct StubKeyframeTrackContent<Value: Animatable>: KeyframeTrackContent {}

/// Declared as on <https://developer.apple.com/documentation/swiftui/cubickeyframe>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct CubicKeyframe<Value>: KeyframeTrackContent where Value: Animatable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/cubickeyframe/init(_:duration:startvelocity:endvelocity:)>.
    public init(_ to: Value, duration: TimeInterval, startVelocity: Value? = nil, endVelocity: Value? = nil) {
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrack>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct KeyframeTrack<Root, Value, Content>: Keyframes
where Value == Content.Value, Content: KeyframeTrackContent {
    public typealias Value = Root

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrack/init(content:)>.
    public init(@KeyframeTrackContentBuilder<Root> content: () -> Content) where Root == Value {}
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@resultBuilder public struct KeyframeTrackContentBuilder<Value> where Value: Animatable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder/buildexpression(_:)>.
    public static func buildExpression<K>(_ expression: K) -> K
    where Value == K.Value, K: KeyframeTrackContent {
        expression
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder/buildarray(_:)>.
    public static func buildArray(
        _ components: [some KeyframeTrackContent<Value>]
    ) -> some KeyframeTrackContent<Value> {
        StubKeyframeTrackContent<Value>()
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder/buildblock()>.
    public static func buildBlock() -> some KeyframeTrackContent<Value> { StubKeyframeTrackContent<Value>() }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder/buildpartialblock(first:)>.
    // The stored page shows no declaration; the generic `K` matches `buildExpression(_:)`.
    public static func buildPartialBlock<K>(first: K) -> K where Value == K.Value, K: KeyframeTrackContent {
        first
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframetrackcontentbuilder/buildpartialblock(accumulated:next:)>.
    // Written as `KeyframesBuilder.buildPartialBlock(accumulated:next:)`, whose page shows it.
    public static func buildPartialBlock(
        accumulated: some KeyframeTrackContent<Value>, next: some KeyframeTrackContent<Value>
    ) -> some KeyframeTrackContent<Value> {
        StubKeyframeTrackContent<Value>()
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@resultBuilder public struct KeyframesBuilder<Value> {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildexpression(_:)>.
    // (the `KeyframeTrackContent` overload, as on KeyframeTrackContentBuilder's page)
    public static func buildExpression<K>(_ expression: K) -> K
    where Value == K.Value, K: KeyframeTrackContent {
        expression
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildarray(_:)>.
    public static func buildArray(
        _ components: [some KeyframeTrackContent<Value>]
    ) -> some KeyframeTrackContent<Value>
    where Value: Animatable {
        StubKeyframeTrackContent<Value>()
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildblock()>.
    public static func buildBlock() -> some KeyframeTrackContent<Value> where Value: Animatable {
        StubKeyframeTrackContent<Value>()
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildpartialblock(first:)>.
    // The stored page shows no declaration; the generic `K` matches `buildExpression(_:)`.
    public static func buildPartialBlock<K>(first: K) -> K where Value == K.Value, K: KeyframeTrackContent {
        first
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildpartialblock(accumulated:next:)>.
    public static func buildPartialBlock(
        accumulated: some KeyframeTrackContent<Value>, next: some KeyframeTrackContent<Value>
    ) -> some KeyframeTrackContent<Value> where Value: Animatable {
        StubKeyframeTrackContent<Value>()
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildfinalresult(_:)>.
    // (the `Keyframes` overload)
    public static func buildFinalResult<Content>(_ component: Content) -> Content
    where Value == Content.Value, Content: Keyframes {
        component
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/keyframesbuilder/buildfinalresult(_:)>.
    // (the `KeyframeTrackContent` overload, which wraps the content in a track of the whole value)
    public static func buildFinalResult<Content>(_ component: Content) -> KeyframeTrack<Value, Value, Content>
    where Value == Content.Value, Content: KeyframeTrackContent {
        KeyframeTrack { component }
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/placeholdercontentview>.
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public struct PlaceholderContentView<Value>: View {
    public var body: EmptyView { EmptyView() }
}
