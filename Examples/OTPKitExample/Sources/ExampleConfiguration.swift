import Foundation
import OTPClient
import OTPCore

/// Where the example sends its verification: a real server when one is configured, otherwise an in-memory one.
///
/// Set these in the scheme's environment (Product › Scheme › Edit Scheme › Run › Arguments):
/// - `OTPKIT_SERVER_URL`: the server's address, such as `http://127.0.0.1:8080`;
/// - `OTPKIT_PUBLISHABLE_KEY`: a publishable key the server accepts (`otp serve --publishable-key
///   ios=pk_…`); never a secret API key, which must not ship inside an app;
/// - `OTPKIT_DESTINATION`: the phone number or email to verify (default `+1 201 555 0100`).
struct ExampleConfiguration {
    /// The server's address, when one is configured.
    var serverURL: URL?
    /// The app's publishable key for the server.
    var publishableKey: String?
    /// The phone number or email the code is sent to.
    var destination: String

    /// Reads the configuration from the process environment.
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> ExampleConfiguration
    {
        ExampleConfiguration(
            serverURL: environment["OTPKIT_SERVER_URL"].flatMap(URL.init(string:)),
            publishableKey: environment["OTPKIT_PUBLISHABLE_KEY"],
            destination: environment["OTPKIT_DESTINATION"] ?? "+1 201 555 0100")
    }

    /// The real client when a server and a publishable key are configured.
    ///
    /// Its approving answer carries an approval token: hand it to your backend, which verifies it
    /// offline against the server's `/.well-known/jwks.json`.
    var client: VerificationClient? {
        guard let serverURL, let publishableKey, !publishableKey.isEmpty else { return nil }
        return VerificationClient(baseURL: serverURL, publishableKey: publishableKey)
    }

    /// A line saying which service the screen talks to.
    var summary: String {
        if let client { return "Server: \(client.baseURL.absoluteString)" }
        return "Offline: in-memory service. The code is 482019."
    }
}
