// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "OTPKit",
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        .library(name: "OTPCore", targets: ["OTPCore"]),
        .library(name: "OTPServer", targets: ["OTPServer"]),
        .library(name: "OTPClient", targets: ["OTPClient"]),
    ],
    targets: [
        // MARK: Core (Linux and Apple)
        .target(name: "OTPCore"),
        .testTarget(name: "OTPCoreTests", dependencies: ["OTPCore"]),

        // MARK: Client
        .target(name: "OTPClient", dependencies: ["OTPCore"]),
        .testTarget(name: "OTPClientTests", dependencies: ["OTPClient", "OTPCore"]),

        // MARK: Terminal rendering (Linux and macOS)
        .target(name: "OTPTerminal", dependencies: ["OTPCore"]),
        .testTarget(name: "OTPTerminalTests", dependencies: ["OTPTerminal", "OTPCore"]),

        // MARK: Server engine
        .target(
            name: "OTPServer",
            dependencies: ["OTPCore", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]
        ),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .testTarget(name: "OTPServerTests", dependencies: ["OTPServer", "OTPCore"]),

        // MARK: Delivery and the HTTP front
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "OTPDelivery", dependencies: ["OTPServer", "CCurl"]),
        .testTarget(name: "OTPDeliveryTests", dependencies: ["OTPDelivery"], exclude: ["Receivers"]),
    ],
    swiftLanguageModes: [.v6]
)
