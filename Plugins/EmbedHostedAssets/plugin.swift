import PackagePlugin

/// Builds the hosted page's script and stylesheet (`Hosted/Assets/otp.js`, `otp.css`) into
/// OTPHTTP as Swift strings, so they are real files to edit and test and still one binary.
@main
struct EmbedHostedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let assets = target.directoryURL.appending(path: "Hosted/Assets")
        let script = assets.appending(path: "otp.js")
        let stylesheet = assets.appending(path: "otp.css")
        let output = context.pluginWorkDirectoryURL.appending(path: "HostedAssetFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding the hosted page's script and stylesheet",
                executable: try context.tool(named: "EmbedAssets").url,
                arguments: [
                    output.path(percentEncoded: false), "HostedAssetFiles",
                    "otpJS=" + script.path(percentEncoded: false),
                    "otpCSS=" + stylesheet.path(percentEncoded: false),
                ],
                inputFiles: [script, stylesheet],
                outputFiles: [output])
        ]
    }
}
