// An app that imports OTPKit alone and has types of its own named like the kit's: its own
// names win unqualified, the kit's are reached qualified (scripts/typecheck-ui.sh checks this).

import OTPKit
import SwiftUI

struct Verification {}
enum Channel { case push }
struct Toast {}
struct Keypad {}

@MainActor
struct AppScreen: View {
    let ownVerification = Verification()
    let ownChannel = Channel.push
    let kitChannel: OTPCore.Channel = .sms
    let kitToast = OTPCore.Toast("New code sent", serial: 1)
    @State private var model = VerificationModel(
        service: PreviewVerificationService(),
        text: ScreenText(.english).overriding(.title, with: .text("Confirm")))

    var body: some View {
        VStack {
            VerificationScreen(model: model)
                .task { await model.start(to: "+1 555 0100") }
            OTPUI.Keypad(rows: KeypadLayout.rows(accessory: .none), isEnabled: { _ in true }) { _ in }
        }
    }

    func kitVerification(_ verification: OTPCore.Verification) -> String { verification.id }

    func client(_ url: URL) -> VerificationClient {
        VerificationClient(baseURL: url, publishableKey: "pk_test")
    }
}
