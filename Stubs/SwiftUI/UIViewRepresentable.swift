// Wrapping a UIKit view in a SwiftUI view. Declared, like on Apple's SDKs, only
// where UIKit exists: on Linux, against the UIKit stub (Stubs/UIKit).
//
// Declarations follow the Apple documentation page cited above each one (see
// README.md). Bodies only hold enough to type-check; the module never runs.

#if canImport(UIKit)
    import UIKit

    /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable>.
    @available(iOS 13.0, tvOS 13.0, *)
    @MainActor @preconcurrency public protocol UIViewRepresentable: View where Self.Body == Never {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/uiviewtype>.
        associatedtype UIViewType: UIView

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/makeuiview(context:)>.
        @MainActor @preconcurrency func makeUIView(context: Self.Context) -> Self.UIViewType

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/updateuiview(_:context:)>.
        // The stored documentation has no copy of this page; the declaration is the one
        // UIViewControllerRepresentable's page shows for its counterpart,
        // https://developer.apple.com/documentation/swiftui/uiviewcontrollerrepresentable/updateuiviewcontroller(_:context:).
        @MainActor @preconcurrency func updateUIView(_ uiView: Self.UIViewType, context: Self.Context)

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/dismantleuiview(_:coordinator:)>.
        // The stored documentation has no copy of this page; the declaration is the one
        // UIViewControllerRepresentable's page shows for its counterpart,
        // https://developer.apple.com/documentation/swiftui/uiviewcontrollerrepresentable/dismantleuiviewcontroller(_:coordinator:).
        @MainActor @preconcurrency static func dismantleUIView(
            _ uiView: Self.UIViewType, coordinator: Self.Coordinator
        )

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/coordinator>.
        // The stored documentation has no copy of this page; the declaration is the one
        // https://developer.apple.com/documentation/swiftui/uiviewcontrollerrepresentable/coordinator shows.
        associatedtype Coordinator = Void

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/makecoordinator()>.
        @MainActor @preconcurrency func makeCoordinator() -> Self.Coordinator

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/context>.
        typealias Context = UIViewRepresentableContext<Self>
    }

    @available(iOS 13.0, tvOS 13.0, *)
    extension UIViewRepresentable {
        // The default `dismantleUIView(_:coordinator:)` (the requirement's page, above, is not stored).
        @MainActor @preconcurrency public static func dismantleUIView(
            _ uiView: Self.UIViewType, coordinator: Self.Coordinator
        ) {}
    }

    @available(iOS 13.0, tvOS 13.0, *)
    extension UIViewRepresentable where Self.Coordinator == Void {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentable/makecoordinator()>.
        // (the default for `Coordinator == Void`; the stored documentation has the matching page only
        // for UIViewControllerRepresentable,
        // https://developer.apple.com/documentation/swiftui/uiviewcontrollerrepresentable/makecoordinator()-9vwm8)
        @MainActor @preconcurrency public func makeCoordinator() -> Self.Coordinator { () }
    }

    @available(iOS 13.0, tvOS 13.0, *)
    extension UIViewRepresentable where Self.Body == Never {
        // What lets a representable omit `body`, as on iOS. The stored documentation has no page for
        // this default; the protocol's page requires `Body == Never`, and no `Never` value exists.
        public var body: Never { stubNeverEvaluated() }
    }

    /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentablecontext>.
    // SwiftUI makes the context and hands it in (the page says so): it has no public initializer.
    @available(iOS 13.0, tvOS 13.0, *)
    @MainActor @preconcurrency public struct UIViewRepresentableContext<Representable>
    where Representable: UIViewRepresentable {
        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentablecontext/coordinator>.
        @MainActor @preconcurrency public let coordinator: Representable.Coordinator

        /// Declared as on <https://developer.apple.com/documentation/swiftui/uiviewrepresentablecontext/environment>.
        @MainActor @preconcurrency public var environment: EnvironmentValues { EnvironmentValues() }
    }
#endif
