// The preview macro. It lives in DeveloperToolsSupport, which SwiftUI re-exports.
//
// The declaration follows the Apple documentation page cited above it (see
// README.md). Its implementation here is `PreviewsMacros/SwiftUIView.swift`,
// which expands to nothing: the macro's arguments are still type-checked, so
// every preview body is checked like any other view code.

// https://developer.apple.com/documentation/developertoolssupport/preview(_:body:)
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
@freestanding(declaration)
public macro Preview(_ name: String? = nil, @ViewBuilder body: @escaping @MainActor () -> any View) =
    #externalMacro(module: "PreviewsMacros", type: "SwiftUIView")
