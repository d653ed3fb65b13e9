// Built-in views: text, images, buttons, the text field, stacks and lists.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    private let key: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/init(_:)>.
    public init(_ value: String) { key = value }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/init(stringliteral:)>.
    public init(stringLiteral value: String) { key = value }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/init(stringinterpolation:)>.
    public init(stringInterpolation: LocalizedStringKey.StringInterpolation) {
        key = stringInterpolation.text
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/stringinterpolation>.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var text = ""

        /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/stringinterpolation/init(literalcapacity:interpolationcount:)>.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/stringinterpolation/appendliteral(_:)>.
        public mutating func appendLiteral(_ literal: String) { text += literal }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/stringinterpolation/appendinterpolation(_:)>.
        // (the `String` overload)
        public mutating func appendInterpolation(_ string: String) { text += string }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/localizedstringkey/stringinterpolation/appendinterpolation(_:)>.
        // (the `Text` overload)
        public mutating func appendInterpolation(_ text: Text) {}
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/text>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct Text: View, Equatable, Sendable {
    private let content: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/text/init(_:tablename:bundle:comment:)>.
    public init(
        _ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil,
        comment: StaticString? = nil
    ) {
        content = ""
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4>.
    // (the `StringProtocol` overload, `@_disfavoredOverload` in the SDK)
    @_disfavoredOverload public init<S>(_ content: S) where S: StringProtocol {
        self.content = String(content)
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/text/init(verbatim:)>.
    public init(verbatim content: String) { self.content = content }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/image>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct Image: View, Equatable, Sendable {
    private let name: String

    /// Declared as on <https://developer.apple.com/documentation/swiftui/image/init(systemname:)>.
    @available(iOS 13.0, macOS 11.0, tvOS 13.0, watchOS 6.0, *)
    public init(systemName: String) { name = systemName }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/button>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct Button<Label>: View where Label: View {
    private let label: Label

    /// Declared as on <https://developer.apple.com/documentation/swiftui/button/init(action:label:)>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    @preconcurrency nonisolated public init(
        action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label
    ) {
        self.label = label()
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/textfield>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct TextField<Label>: View where Label: View {
    private let text: Binding<String>

    public var body: EmptyView { EmptyView() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension TextField where Label == Text {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/textfield/init(_:text:)>.
    // (the `LocalizedStringKey` overload)
    nonisolated public init(_ titleKey: LocalizedStringKey, text: Binding<String>) { self.text = text }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/textfield/init(_:text:)-2laoi>.
    // (the `StringProtocol` overload, `@_disfavoredOverload` in the SDK)
    @_disfavoredOverload nonisolated public init<S>(_ title: S, text: Binding<String>)
    where S: StringProtocol {
        self.text = text
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/hstack>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct HStack<Content>: View where Content: View {
    private let content: Content

    /// Declared as on <https://developer.apple.com/documentation/swiftui/hstack/init(alignment:spacing:content:)>.
    // The stored documentation has no copy of this page; the declaration is VStack's (below) with
    // `VerticalAlignment`, as HStack's page (https://developer.apple.com/documentation/swiftui/hstack) uses it.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    nonisolated public init(
        alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) {
        self.content = content()
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/vstack>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct VStack<Content>: View where Content: View {
    private let content: Content

    /// Declared as on <https://developer.apple.com/documentation/swiftui/vstack/init(alignment:spacing:content:)>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    nonisolated public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) {
        self.content = content()
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/zstack>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct ZStack<Content>: View where Content: View {
    private let content: Content

    /// Declared as on <https://developer.apple.com/documentation/swiftui/zstack/init(alignment:content:)>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    nonisolated public init(alignment: Alignment = .center, @ViewBuilder content: () -> Content) {
        self.content = content()
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/foreach>.
// The page declares `struct ForEach<Data, ID, Content> where Data : RandomAccessCollection, ID : Hashable`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct ForEach<Data, ID, Content> where Data: RandomAccessCollection, ID: Hashable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/foreach/data>.
    public var data: Data

    /// Declared as on <https://developer.apple.com/documentation/swiftui/foreach/content>.
    public var content: (Data.Element) -> Content
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach: View where Content: View {
    public var body: EmptyView { EmptyView() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    // https://developer.apple.com/documentation/swiftui/foreach (Topics: `init(_:content:)`, the view overload
    // for `Identifiable` elements). The stored documentation has no page for this overload; the address
    // .../foreach/init(_:content:) holds MapKit's map-content overload, whose constraints
    // (`ID == Data.Element.ID, Data.Element : Identifiable`) and parameter list this one shares.
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach where Content: View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/foreach/init(_:id:content:)>.
    // The stored documentation has no copy of this page; `id: KeyPath<Data.Element, ID>` is the form that
    // List's https://developer.apple.com/documentation/swiftui/list/init(_:id:rowcontent:)-4s0aj passes on.
    public init(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content
    ) {
        self.data = data
        self.content = content
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/geometryreader>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
nonisolated public struct GeometryReader<Content>: View where Content: View {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/geometryreader/content>.
    public var content: (GeometryProxy) -> Content

    /// Declared as on <https://developer.apple.com/documentation/swiftui/geometryreader/init(content:)>.
    // The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
    nonisolated public init(@ViewBuilder content: @escaping (GeometryProxy) -> Content) {
        self.content = content
    }

    public var body: EmptyView { EmptyView() }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/geometryproxy>.
// Only SwiftUI creates one; it has no public initializer.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct GeometryProxy {
    private let containerSize: CGSize

    /// Declared as on <https://developer.apple.com/documentation/swiftui/geometryproxy/size>.
    public var size: CGSize { containerSize }
}
