// View modifiers for layout, appearance, input, focus, change and animation.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Every modifier returns the view unchanged: the module is only
// type-checked, never run.

import Foundation

// The stub declares no requirements: the project never writes its own modifier.
/// Declared as on <https://developer.apple.com/documentation/swiftui/viewmodifier>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol ViewModifier {}

/// Declared as on <https://developer.apple.com/documentation/swiftui/modifiedcontent>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct ModifiedContent<Content, Modifier> {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/modifiedcontent/content>.
    public var content: Content
    /// Declared as on <https://developer.apple.com/documentation/swiftui/modifiedcontent/modifier>.
    public var modifier: Modifier

    /// Declared as on <https://developer.apple.com/documentation/swiftui/modifiedcontent/init(content:modifier:)>.
    public init(content: Content, modifier: Modifier) {
        self.content = content
        self.modifier = modifier
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ModifiedContent: View where Content: View, Modifier: ViewModifier {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/body-8kl5o>.
    public var body: EmptyView { EmptyView() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/frame(width:height:alignment:)>.
    nonisolated public func frame(
        width: CGFloat? = nil, height: CGFloat? = nil, alignment: Alignment = .center
    )
        -> some View
    { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/frame(minwidth:idealwidth:maxwidth:minheight:idealheight:maxheight:alignment:)>.
    nonisolated public func frame(
        minWidth: CGFloat? = nil, idealWidth: CGFloat? = nil, maxWidth: CGFloat? = nil,
        minHeight: CGFloat? = nil,
        idealHeight: CGFloat? = nil, maxHeight: CGFloat? = nil, alignment: Alignment = .center
    ) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/padding(_:_:)>.
    nonisolated public func padding(_ edges: Edge.Set = .all, _ length: CGFloat? = nil) -> some View { self }

    // (the `CGFloat` overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/padding(_:)>.
    nonisolated public func padding(_ length: CGFloat) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/opacity(_:)>.
    nonisolated public func opacity(_ opacity: Double) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/offset(x:y:)>.
    nonisolated public func offset(x: CGFloat = 0, y: CGFloat = 0) -> some View { self }

    // (the `CGFloat` overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/scaleeffect(_:anchor:)>.
    nonisolated public func scaleEffect(_ s: CGFloat, anchor: UnitPoint = .center) -> some View { self }

    // (the page writes `@ContentBuilder`, Xcode 27's spelling; the iOS 17 SDK's is `@ViewBuilder`)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/background(alignment:content:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func background<V>(
        alignment: Alignment = .center, @ViewBuilder content: () -> V
    )
        -> some View where V: View
    { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/background(_:in:fillstyle:)-89n7j>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func background<S, T>(
        _ style: S, in shape: T, fillStyle: FillStyle = FillStyle()
    ) -> some View
    where S: ShapeStyle, T: Shape {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/background(_:in:fillstyle:)-20tq5>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func background<S, T>(
        _ style: S, in shape: T, fillStyle: FillStyle = FillStyle()
    ) -> some View
    where S: ShapeStyle, T: InsettableShape {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/overlay(alignment:content:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func overlay<V>(
        alignment: Alignment = .center, @ViewBuilder content: () -> V
    ) -> some View
    where V: View {
        self
    }

    // (the `VerticalEdge` overload) The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK
    // spells it `@ViewBuilder`.
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/safeareainset(edge:alignment:spacing:content:)-4s51l>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func safeAreaInset<V>(
        edge: VerticalEdge, alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil,
        @ViewBuilder content: () -> V
    ) -> some View where V: View {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/foregroundstyle(_:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func foregroundStyle<S>(_ style: S) -> some View where S: ShapeStyle { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/font(_:)>.
    nonisolated public func font(_ font: Font?) -> some View { self }

    // (the `TextAlignment` overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/multilinetextalignment(_:)>.
    nonisolated public func multilineTextAlignment(_ alignment: TextAlignment) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/contentshape(_:eofill:)>.
    nonisolated public func contentShape<S>(_ shape: S, eoFill: Bool = false) -> some View where S: Shape {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/ontapgesture(count:perform:)>.
    @available(iOS 13.0, macOS 10.15, tvOS 16.0, watchOS 6.0, *)
    nonisolated public func onTapGesture(count: Int = 1, perform action: @escaping () -> Void) -> some View {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/allowshittesting(_:)>.
    nonisolated public func allowsHitTesting(_ enabled: Bool) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/onappear(perform:)>.
    nonisolated public func onAppear(perform action: (() -> Void)? = nil) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/disabled(_:)>.
    nonisolated public func disabled(_ disabled: Bool) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/environment(_:_:)>.
    nonisolated public func environment<V>(
        _ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V
    ) -> some View {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/preferredcolorscheme(_:)>.
    nonisolated public func preferredColorScheme(_ colorScheme: ColorScheme?) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/focused(_:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func focused(_ condition: FocusState<Bool>.Binding) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/focused(_:equals:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func focused<Value>(
        _ binding: FocusState<Value>.Binding, equals value: Value
    ) -> some View
    where Value: Hashable {
        self
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/onchange(of:initial:_:)-4psgg>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func onChange<V>(
        of value: V, initial: Bool = false, _ action: @escaping (V, V) -> Void
    )
        -> some View
    where V: Equatable {
        self
    }

    // (the zero-parameter overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/onchange(of:initial:_:)>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func onChange<V>(
        of value: V, initial: Bool = false, _ action: @escaping () -> Void
    ) -> some View
    where V: Equatable {
        self
    }

    // The SDK interface also marks `action` `@_inheritActorContext` (underscored attributes are not
    // rendered on the page): a task started from a view body runs on the main actor.
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/task(name:priority:file:line:_:)>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    nonisolated public func task(
        name: String? = nil, priority: TaskPriority = .userInitiated, file: String = #fileID,
        line: Int = #line,
        @_inheritActorContext _ action: sending @escaping @isolated(any) () async -> Void
    ) -> some View { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/animation(_:value:)>.
    nonisolated public func animation<V>(_ animation: Animation?, value: V) -> some View where V: Equatable {
        self
    }

    // (the `AnyTransition` overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/transition(_:)>.
    nonisolated public func transition(_ t: AnyTransition) -> some View { self }

    // The page shows `@ContentBuilder` (Xcode 27) and `some Keyframes`; the iOS 17 SDK declares
    // `@ViewBuilder` and `some Keyframes<Value>` (the symbol's mangled name carries the `Value` constraint).
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/keyframeanimator(initialvalue:trigger:content:keyframes:)>.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    nonisolated public func keyframeAnimator<Value>(
        initialValue: Value, trigger: some Equatable,
        @ViewBuilder content: @escaping @Sendable (PlaceholderContentView<Self>, Value) -> some View,
        @KeyframesBuilder<Value> keyframes: @escaping (Value) -> some Keyframes<Value>
    ) -> some View { self }

    // (the `ButtonStyle` overload)
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/buttonstyle(_:)>.
    nonisolated public func buttonStyle<S>(_ style: S) -> some View where S: ButtonStyle { self }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyle>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol ButtonStyle {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyle/body>.
    associatedtype Body: View

    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyle/makebody(configuration:)>.
    @ViewBuilder @MainActor @preconcurrency func makeBody(configuration: Self.Configuration) -> Self.Body

    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyle/configuration>.
    typealias Configuration = ButtonStyleConfiguration
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyleconfiguration>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct ButtonStyleConfiguration {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyleconfiguration/label-swift.struct>.
    public struct Label: View {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/view/body-8kl5o>.
        public var body: EmptyView { EmptyView() }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyleconfiguration/label-swift.property>.
    public let label: ButtonStyleConfiguration.Label

    /// Declared as on <https://developer.apple.com/documentation/swiftui/buttonstyleconfiguration/ispressed>.
    public let isPressed: Bool
}
