// The view protocol, the view builder and the builder's result types.
//
// Stub rules (see README.md in this folder): each declaration below is the
// signature shown on the Apple documentation page in the comment above it,
// with `public` added. Attributes that only change code generation
// (`@export(implementation)`, `@frozen`) are left out; where the page shows a
// newer SDK's spelling than the iOS 17 / macOS 14 SDK this package targets,
// the comment says so and the stub keeps the stricter older form.

// On Apple platforms `import SwiftUI` also brings Foundation's and Core
// Graphics' types (`CGFloat`, `Date`, `URL`) into scope; the stub does the same.
@_exported import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/view>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@MainActor @preconcurrency public protocol View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/body-swift.associatedtype>.
    associatedtype Body: View

    /// Declared as on <https://developer.apple.com/documentation/swiftui/view/body-8kl5o>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@resultBuilder public struct ViewBuilder {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock()>.
    // The page returns `EmptyContent` (Xcode 27); the iOS 17 SDK returns `EmptyView`.
    public static func buildBlock() -> EmptyView { EmptyView() }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)>.
    // The page drops `where Content: View` (Xcode 27's type-agnostic builder); the stub keeps it.
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-2bj1g>.
    public static func buildBlock<each Content>(
        _ content: repeat each Content
    ) -> TupleView<(repeat each Content)>
    where repeat each Content: View {
        TupleView((repeat each content))
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildif(_:)>.
    // The stub keeps the iOS 17 SDK's `where Content: View`.
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(first:)>.
    // The stub keeps the iOS 17 SDK's `where TrueContent: View, FalseContent: View`.
    public static func buildEither<TrueContent, FalseContent>(
        first: TrueContent
    ) -> _ConditionalContent<
        TrueContent, FalseContent
    > where TrueContent: View, FalseContent: View {
        _ConditionalContent(first: first)
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(second:)>.
    // The stub keeps the iOS 17 SDK's `where TrueContent: View, FalseContent: View`.
    public static func buildEither<TrueContent, FalseContent>(
        second: FalseContent
    ) -> _ConditionalContent<
        TrueContent, FalseContent
    > where TrueContent: View, FalseContent: View {
        _ConditionalContent(second: second)
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/tupleview>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct TupleView<T>: View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/tupleview/value>.
    public var value: T

    /// Declared as on <https://developer.apple.com/documentation/swiftui/tupleview/init(_:)>.
    nonisolated public init(_ value: T) { self.value = value }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/_conditionalcontent>.
// The page is not in the documentation set; the type is what `buildEither` returns.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct _ConditionalContent<TrueContent, FalseContent>: View
where TrueContent: View, FalseContent: View {
    private let isFirst: Bool
    init(first: TrueContent) { isFirst = true }
    init(second: FalseContent) { isFirst = false }
    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/emptyview>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct EmptyView: View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/emptyview/init()>.
    nonisolated public init() {}

    public var body: EmptyView { self }
}

/// Declared as on <https://developer.apple.com/documentation/swift/optional>.
// "Optional conforms to View when Wrapped conforms to View" (Relationships on the page).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Optional: View where Wrapped: View {
    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swift/never>.
// SwiftUI's `extension Never: View` (with `Body == Never`): what lets primitive views and
// representables (`UIViewRepresentable: View where Self.Body == Never`) satisfy `Body: View`. The
// stored copy of the page shows only the standard library's declaration.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Never: View {
    public var body: Never { self }
}
