import OTPCore
import OTPUI
import SwiftUI

/// Shows OTPKit's verification screen, against a server or offline.
@main
struct OTPKitExampleApp: App {
    var body: some Scene {
        WindowGroup {
            ExampleRootView(configuration: .fromEnvironment())
        }
    }
}
