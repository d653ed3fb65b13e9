// One import for an app: `import OTPKit` brings the screen's behaviour (OTPCore), its SwiftUI
// views (OTPUI, empty where SwiftUI is missing) and the HTTP client (OTPClient).
//
// A name the app also uses keeps working qualified by the module that declares it, such as
// `OTPCore.Verification`, `OTPCore.Channel`, `OTPCore.Toast` or `OTPUI.Keypad`.

@_exported import OTPClient
@_exported import OTPCore
@_exported import OTPUI
