// The preview macro.
//
// The declaration follows the Apple documentation page cited above it (see
// README.md). Its implementation here is `PreviewsMacros/SwiftUIView.swift`,
// which expands to nothing: the macro's arguments are still type-checked, so
// every preview body is checked like any other view code.

/// Declared as on <https://developer.apple.com/documentation/swiftui/preview(_:body:)>.
// The page shows `@ContentBuilder` (Xcode 27); the iOS 17 SDK spells it `@ViewBuilder`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@freestanding(declaration)
public macro Preview(_ name: String? = nil, @ViewBuilder body: @escaping @MainActor () -> any View) =
    #externalMacro(module: "PreviewsMacros", type: "SwiftUIView")
