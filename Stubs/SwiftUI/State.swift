// State, bindings, focus, environment and scaled metrics.
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

import Foundation

/// Declared as on <https://developer.apple.com/documentation/swiftui/dynamicproperty>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol DynamicProperty {}

/// Shared storage behind the stub's property wrappers.
final class StubBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/state>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct State<Value>: DynamicProperty {
    private let box: StubBox<Value>

    /// Declared as on <https://developer.apple.com/documentation/swiftui/state/init(wrappedvalue:)>.
    public init(wrappedValue value: Value) { box = StubBox(value) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/state/init(initialvalue:)>.
    public init(initialValue value: Value) { box = StubBox(value) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/state/wrappedvalue>.
    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/state/projectedvalue>.
    public var projectedValue: Binding<Value> { Binding(box: box) }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/binding>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    private let read: () -> Value
    private let write: (Value) -> Void

    init(box: StubBox<Value>) {
        read = { box.value }
        write = { box.value = $0 }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/init(get:set:)-7ufcp>.
    @preconcurrency public init(
        get: @escaping @isolated(any) @Sendable () -> Value,
        set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {
        // An `@isolated(any)` closure can only be awaited; the stub never reads it.
        read = { stubNeverEvaluated() }
        write = { _ in }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/init(projectedvalue:)>.
    public init(projectedValue: Binding<Value>) { self = projectedValue }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/constant(_:)>.
    public static func constant(_ value: Value) -> Binding<Value> { Binding(box: StubBox(value)) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/wrappedvalue>.
    public var wrappedValue: Value {
        get { read() }
        nonmutating set { write(newValue) }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/projectedvalue>.
    public var projectedValue: Binding<Value> { self }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/binding/subscript(dynamicmember:)>.
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        let base = self
        return Binding<Subject>(
            read: { base.wrappedValue[keyPath: keyPath] },
            write: { base.wrappedValue[keyPath: keyPath] = $0 })
    }

    private init(read: @escaping () -> Value, write: @escaping (Value) -> Void) {
        self.read = read
        self.write = write
    }
}

// "A binding conforms to Sendable only if its wrapped value type also conforms to Sendable."
// (Discussion on https://developer.apple.com/documentation/swiftui/binding/init(get:set:)-7ufcp)
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Binding: @unchecked Sendable where Value: Sendable {}

/// Stands in for a value the stub cannot produce; the stub is type-checked, never run.
func stubNeverEvaluated<T>() -> T {
    preconditionFailure("The SwiftUI stub is for type-checking only.")
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate>.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
@propertyWrapper public struct FocusState<Value>: DynamicProperty where Value: Hashable {
    private let box: StubBox<Value>

    /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/binding>.
    @propertyWrapper public struct Binding {
        fileprivate let box: StubBox<Value>

        /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/binding/wrappedvalue>.
        public var wrappedValue: Value {
            get { box.value }
            nonmutating set { box.value = newValue }
        }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/binding/projectedvalue>.
        public var projectedValue: FocusState<Value>.Binding { self }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/wrappedvalue>.
    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/projectedvalue>.
    public var projectedValue: FocusState<Value>.Binding { Binding(box: box) }

    fileprivate init(value: Value) { box = StubBox(value) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/init()> (the `Value == Bool` overload).
    public init() where Value == Bool { self.init(value: false) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/focusstate/init()> (the optional-value overload).
    public init<T>() where Value == T?, T: Hashable { self.init(value: nil) }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate>.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
@propertyWrapper public struct AccessibilityFocusState<Value>: DynamicProperty where Value: Hashable {
    private let box: StubBox<Value>

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/binding>.
    @propertyWrapper public struct Binding {
        fileprivate let box: StubBox<Value>

        /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/binding/wrappedvalue>.
        public var wrappedValue: Value {
            get { box.value }
            nonmutating set { box.value = newValue }
        }

        /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/binding/projectedvalue>.
        public var projectedValue: AccessibilityFocusState<Value>.Binding { self }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/wrappedvalue>.
    public var wrappedValue: Value {
        get { box.value }
        nonmutating set { box.value = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/projectedvalue>.
    public var projectedValue: AccessibilityFocusState<Value>.Binding { Binding(box: box) }

    fileprivate init(value: Value) { box = StubBox(value) }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/accessibilityfocusstate/init()> (the `Value == Bool` overload).
    public init() where Value == Bool { self.init(value: false) }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/scaledmetric>.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@propertyWrapper public struct ScaledMetric<Value>: DynamicProperty where Value: BinaryFloatingPoint {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/scaledmetric/wrappedvalue>.
    public var wrappedValue: Value

    /// Declared as on <https://developer.apple.com/documentation/swiftui/scaledmetric/init(wrappedvalue:)>.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/scaledmetric/init(wrappedvalue:relativeto:)>.
    public init(wrappedValue: Value, relativeTo textStyle: Font.TextStyle) {
        self.wrappedValue = wrappedValue
    }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/environmentkey>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol EnvironmentKey {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentkey/value>.
    associatedtype Value

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentkey/defaultvalue>.
    static var defaultValue: Self.Value { get }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EnvironmentValues: CustomStringConvertible {
    private var stored: [ObjectIdentifier: Any] = [:]

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/init()>.
    public init() {}

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/subscript(_:)> (the `EnvironmentKey` overload).
    public subscript<K>(key: K.Type) -> K.Value where K: EnvironmentKey {
        get { stored[ObjectIdentifier(key)] as? K.Value ?? K.defaultValue }
        set { stored[ObjectIdentifier(key)] = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/description>.
    public var description: String { "EnvironmentValues" }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/colorscheme>.
    public var colorScheme: ColorScheme {
        get { self[ColorSchemeKey.self] }
        set { self[ColorSchemeKey.self] = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/accessibilityreducemotion>.
    public var accessibilityReduceMotion: Bool { false }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/colorschemecontrast>.
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public var colorSchemeContrast: ColorSchemeContrast { .standard }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/accessibilityvoiceoverenabled>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public var accessibilityVoiceOverEnabled: Bool { false }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/layoutdirection>.
    public var layoutDirection: LayoutDirection {
        get { self[LayoutDirectionKey.self] }
        set { self[LayoutDirectionKey.self] = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/dynamictypesize>.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public var dynamicTypeSize: DynamicTypeSize {
        get { self[DynamicTypeSizeKey.self] }
        set { self[DynamicTypeSizeKey.self] = newValue }
    }

    // The page also shows `@backDeployed(before: macOS 14.0, tvOS 17.0, watchOS 10.0)`, which only
    // affects code generation (see README.md).
    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/horizontalsizeclass>.
    public var horizontalSizeClass: UserInterfaceSizeClass? {
        get { self[HorizontalSizeClassKey.self] }
        set { self[HorizontalSizeClassKey.self] = newValue }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environmentvalues/isenabled>.
    public var isEnabled: Bool {
        get { self[IsEnabledKey.self] }
        set { self[IsEnabledKey.self] = newValue }
    }
}

private enum ColorSchemeKey: EnvironmentKey {
    static let defaultValue = ColorScheme.light
}

private enum LayoutDirectionKey: EnvironmentKey {
    static let defaultValue = LayoutDirection.leftToRight
}

private enum IsEnabledKey: EnvironmentKey {
    static let defaultValue = true
}

private enum DynamicTypeSizeKey: EnvironmentKey {
    static let defaultValue = DynamicTypeSize.large
}

private enum HorizontalSizeClassKey: EnvironmentKey {
    static let defaultValue: UserInterfaceSizeClass? = nil
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/environment>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct Environment<Value>: DynamicProperty {
    private let keyPath: KeyPath<EnvironmentValues, Value>

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environment/init(_:)> (the key-path overload).
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { self.keyPath = keyPath }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/environment/wrappedvalue>.
    public var wrappedValue: Value { EnvironmentValues()[keyPath: keyPath] }
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/colorschemecontrast>.
///
/// The page shows `enum ColorSchemeContrast`, `CaseIterable`, `Hashable`, `Sendable`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum ColorSchemeContrast: CaseIterable, Sendable, Hashable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/colorschemecontrast/standard>.
    case standard
    /// Declared as on <https://developer.apple.com/documentation/swiftui/colorschemecontrast/increased>.
    case increased
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/colorscheme>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum ColorScheme: CaseIterable, Sendable, Hashable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/colorscheme/light>.
    case light
    /// Declared as on <https://developer.apple.com/documentation/swiftui/colorscheme/dark>.
    case dark
}

/// Declared as on <https://developer.apple.com/documentation/swiftui/layoutdirection>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum LayoutDirection: Hashable, CaseIterable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/layoutdirection/lefttoright>.
    case leftToRight
    /// Declared as on <https://developer.apple.com/documentation/swiftui/layoutdirection/righttoleft>.
    case rightToLeft
}

// `enum DynamicTypeSize`: `CaseIterable`, `Comparable`, `Hashable`, `Sendable`. The cases are in
// the page's order, smallest to largest, which is the order `Comparable` compares them in.
/// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize>.
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
public enum DynamicTypeSize: Hashable, Comparable, CaseIterable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/xsmall>.
    case xSmall
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/small>.
    case small
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/medium>.
    case medium
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/large>.
    case large
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/xlarge>.
    case xLarge
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/xxlarge>.
    case xxLarge
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/xxxlarge>.
    case xxxLarge
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/accessibility1>.
    case accessibility1
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/accessibility2>.
    case accessibility2
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/accessibility3>.
    case accessibility3
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/accessibility4>.
    case accessibility4
    /// Declared as on <https://developer.apple.com/documentation/swiftui/dynamictypesize/accessibility5>.
    case accessibility5
}

// `enum UserInterfaceSizeClass`; the stub declares `Hashable` and `Sendable`.
/// Declared as on <https://developer.apple.com/documentation/swiftui/userinterfacesizeclass>.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum UserInterfaceSizeClass: Hashable, Sendable {
    /// Declared as on <https://developer.apple.com/documentation/swiftui/userinterfacesizeclass/compact>.
    case compact
    /// Declared as on <https://developer.apple.com/documentation/swiftui/userinterfacesizeclass/regular>.
    case regular
}
