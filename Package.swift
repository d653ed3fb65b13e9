// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "OTPKit",
    platforms: [.iOS(.v17), .macOS(.v14)],
    products: [
        // One import for apps: OTPCore, OTPUI and OTPClient re-exported.
        .library(name: "OTPKit", targets: ["OTPKit"]),
        .library(name: "OTPCore", targets: ["OTPCore"]),
        .library(name: "OTPEngine", targets: ["OTPEngine"]),
        .library(name: "OTPSQLite", targets: ["OTPSQLite"]),
        .library(name: "OTPRedis", targets: ["OTPRedis"]),
        .library(name: "OTPPostgres", targets: ["OTPPostgres"]),
        .library(name: "OTPClient", targets: ["OTPClient"]),
        .library(name: "OTPUI", targets: ["OTPUI"]),
        .library(name: "OTPDelivery", targets: ["OTPDelivery"]),
        .library(name: "OTPHTTP", targets: ["OTPHTTP"]),
        .library(name: "OTPTerminal", targets: ["OTPTerminal"]),
        .library(name: "OTPTokens", targets: ["OTPTokens"]),
        .library(name: "OTPQR", targets: ["OTPQR"]),
        .library(name: "OTPPhoneNumbers", targets: ["OTPPhoneNumbers"]),
    ],
    targets: [
        // MARK: Core (Linux and Apple)
        .target(name: "OTPCore"),
        .testTarget(name: "OTPCoreTests", dependencies: ["OTPCore", "OTPTestSupport"]),

        // MARK: SwiftUI views (Apple platforms; every file is inside #if canImport(SwiftUI), so empty on Linux)
        .target(name: "OTPUI", dependencies: ["OTPCore"]),

        // MARK: One import for apps (`import OTPKit`): re-exports OTPCore, OTPUI and OTPClient
        .target(name: "OTPKit", dependencies: ["OTPCore", "OTPUI", "OTPClient"]),

        // MARK: Test support shared by the test targets (not a product)
        .target(name: "OTPTestSupport", path: "Tests/OTPTestSupport"),

        // MARK: Client
        .target(name: "OTPClient", dependencies: ["OTPCore"]),
        .testTarget(
            name: "OTPClientTests",
            dependencies: ["OTPClient", "OTPCore", "OTPHTTP", "OTPServe", "OTPEngine", "OTPTestSupport"]),

        // MARK: Terminal rendering (Linux and macOS)
        .target(name: "OTPTerminal", dependencies: ["OTPCore"]),
        .testTarget(name: "OTPTerminalTests", dependencies: ["OTPTerminal", "OTPCore"]),

        // MARK: Server engine
        .target(
            name: "OTPEngine",
            dependencies: ["OTPCore", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]
        ),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .target(name: "OTPSQLite", dependencies: ["OTPEngine", "OTPCore", "CSQLite"]),
        .systemLibrary(
            name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]),
        .target(name: "OTPRedis", dependencies: ["OTPEngine", "OTPCore", "CHiredis"]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(name: "OTPPostgres", dependencies: ["OTPEngine", "OTPCore", "CLibPQ"]),
        .testTarget(
            name: "OTPEngineTests",
            dependencies: ["OTPEngine", "OTPCore", "OTPSQLite", "OTPRedis", "OTPPostgres", "OTPTestSupport"]),
        .executableTarget(
            name: "OTPBenchmarks",
            dependencies: ["OTPEngine", "OTPCore", "OTPSQLite", "OTPRedis", "CSQLite", "CHiredis"],
            path: "Benchmarks/OTPBenchmarks"),
        // A simulated day of SMS pumping against the guard (make fraud-sim).
        .executableTarget(
            name: "FraudSim", dependencies: ["OTPEngine", "OTPCore", "OTPSQLite"], path: "Benchmarks/FraudSim"
        ),

        // MARK: Signed approval tokens (EdDSA JWS an app's backend verifies offline)
        .target(
            name: "OTPTokens",
            dependencies: ["OTPCore", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]
        ),
        .testTarget(name: "OTPTokensTests", dependencies: ["OTPTokens", "OTPCore"]),
        // QR codes for authenticator enrolment, through libqrencode.
        .systemLibrary(
            name: "CQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]),
        .target(name: "OTPQR", dependencies: ["CQRencode"]),
        .testTarget(name: "OTPQRTests", dependencies: ["OTPQR", "OTPEngine", "OTPTestSupport"]),

        // MARK: Phone numbers through libphonenumber (a C++ target with a C interface)
        .target(
            name: "CPhoneNumbers",
            linkerSettings: [
                .linkedLibrary("phonenumber"), .linkedLibrary("protobuf"), .linkedLibrary("icui18n"),
                .linkedLibrary("icuuc"),
            ]),
        .target(name: "OTPPhoneNumbers", dependencies: ["OTPEngine", "CPhoneNumbers"]),
        .testTarget(
            name: "OTPPhoneNumbersTests",
            dependencies: ["OTPPhoneNumbers", "OTPEngine", "OTPCore", "OTPTestSupport"]),

        // MARK: Delivery and the HTTP front
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "OTPDelivery", dependencies: ["OTPEngine", "CCurl"]),
        .testTarget(
            name: "OTPDeliveryTests", dependencies: ["OTPDelivery", "OTPTestSupport"], exclude: ["Receivers"]),
        .target(
            name: "OTPHTTP", dependencies: ["OTPEngine", "OTPCore", "OTPTokens", "OTPQR", "CMicroHTTPD"],
            exclude: ["Hosted/Assets"], plugins: ["EmbedHostedAssets", "EmbedBuildInfo"]),
        // The hosted page's script and stylesheet are files; this plugin builds them into OTPHTTP.
        .executableTarget(name: "EmbedAssets"),
        .plugin(name: "EmbedHostedAssets", capability: .buildTool(), dependencies: ["EmbedAssets"]),
        // The release's version (VERSION) and commit, built into OTPHTTP from one place.
        .plugin(name: "EmbedBuildInfo", capability: .buildTool(), dependencies: ["EmbedAssets"]),
        // Turns otp serve's text-level choices (store URLs, sender names, secret files, environment)
        // into the values OTPHTTP takes; not a product.
        .target(
            name: "OTPServe",
            dependencies: [
                "OTPHTTP", "OTPEngine", "OTPCore", "OTPDelivery", "OTPSQLite", "OTPRedis", "OTPPostgres",
                "OTPTokens", "OTPPhoneNumbers",
            ]),
        .testTarget(
            name: "OTPHTTPTests",
            dependencies: [
                "OTPHTTP", "OTPServe", "OTPEngine", "OTPCore", "OTPDelivery", "otp", "OTPTestSupport",
                "OTPTokens", "OTPSQLite",
            ]),
        .executableTarget(
            name: "otp",
            dependencies: [
                "OTPServe", "OTPHTTP", "OTPEngine", "OTPCore", "OTPClient", "OTPTerminal", "OTPTokens",
                "OTPQR", "OTPSQLite", "OTPPostgres", "OTPPhoneNumbers",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
