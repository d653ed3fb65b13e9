import OTPCore
import OTPUI
import SwiftUI

/// The verification screen, a confirmation once verified, and which service is in use.
struct ExampleRootView: View {
    private let configuration: ExampleConfiguration
    private let offline: PreviewVerificationService?
    @State private var model: VerificationModel

    init(configuration: ExampleConfiguration) {
        self.configuration = configuration
        if let client = configuration.client {
            offline = nil
            _model = State(initialValue: VerificationModel(service: client))
        } else {
            let service = PreviewVerificationService()
            offline = service
            _model = State(initialValue: VerificationModel(service: service))
        }
    }

    var body: some View {
        // The screen fills the window, so its suggestion bar docks on the keyboard (S1); what the
        // example adds sits above it.
        VerificationScreen(model: model)
            .safeAreaInset(edge: .top) {
                VStack(spacing: 8) {
                    Text(verbatim: configuration.summary)
                        .font(.footnote)
                        .foregroundStyle(Color.secondary)
                    if model.phase == .verified {
                        Text(verbatim: "You're in.")
                            .font(.headline)
                    }
                }
                .padding(.horizontal)
            }
            // Runs each time the view appears; the model starts once and resumes after (V12).
            .task {
                await model.start(to: configuration.destination)
                // Offline, play the phone's part: offer the code that was "sent" (UX S1).
                if let offline, let code = await offline.sentCodes.last {
                    model.offerSuggestion(code)
                }
            }
    }
}

#Preview("Example, offline") {
    ExampleRootView(
        configuration: ExampleConfiguration(
            serverURL: nil, publishableKey: nil, destination: "+1 201 555 0100"))
}

#Preview("Example, offline, dark") {
    ExampleRootView(
        configuration: ExampleConfiguration(
            serverURL: nil, publishableKey: nil, destination: "+1 201 555 0100")
    )
    .preferredColorScheme(.dark)
}
