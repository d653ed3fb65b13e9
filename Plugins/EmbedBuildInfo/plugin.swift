import Foundation
import PackagePlugin

/// Builds the release's version (the package's `VERSION` file) and the commit it was built from
/// into OTPHTTP, so `otp --version`, `/healthz` and the `otp_build_info` metric read one place.
///
/// The commit is read from the checkout's `.git` files (no `git` process): `HEAD`, the branch it
/// names, loose or packed. A build outside a checkout says `unknown`.
@main
struct EmbedBuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let root = context.package.directoryURL
        let version = root.appending(path: "VERSION")
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfoFiles.swift")
        let (commit, gitFiles) = Self.commit(in: root)
        return [
            .buildCommand(
                displayName: "Embedding the version and the commit",
                executable: try context.tool(named: "EmbedAssets").url,
                arguments: [
                    output.path(percentEncoded: false), "BuildInfoFiles",
                    "version=" + version.path(percentEncoded: false), "commit:=" + commit,
                ],
                inputFiles: [version] + gitFiles,
                outputFiles: [output])
        ]
    }

    /// The commit `HEAD` names, and the files it was read from (so a new commit builds again).
    static func commit(in root: URL) -> (String, [URL]) {
        var gitDirectory = root.appending(path: ".git")
        // A worktree's `.git` is a file naming its folder, whose `commondir` holds the refs.
        if let link = try? String(contentsOf: gitDirectory, encoding: .utf8), link.hasPrefix("gitdir: ") {
            let path = link.dropFirst("gitdir: ".count).trimmingCharacters(in: .whitespacesAndNewlines)
            gitDirectory = URL(fileURLWithPath: path, relativeTo: root).standardizedFileURL
        }
        var common = gitDirectory
        if let relative = try? String(contentsOf: gitDirectory.appending(path: "commondir"), encoding: .utf8)
        {
            common =
                URL(
                    fileURLWithPath: relative.trimmingCharacters(in: .whitespacesAndNewlines),
                    relativeTo: gitDirectory.appending(path: "x")
                ).standardizedFileURL
        }
        let headFile = gitDirectory.appending(path: "HEAD")
        guard let head = try? String(contentsOf: headFile, encoding: .utf8) else { return ("unknown", []) }
        let trimmed = head.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("ref: ") else { return (trimmed, [headFile]) }
        let reference = String(trimmed.dropFirst("ref: ".count))
        let loose = common.appending(path: reference)
        if let sha = try? String(contentsOf: loose, encoding: .utf8) {
            return (sha.trimmingCharacters(in: .whitespacesAndNewlines), [headFile, loose])
        }
        let packed = common.appending(path: "packed-refs")
        if let lines = try? String(contentsOf: packed, encoding: .utf8) {
            for line in lines.split(separator: "\n") where line.hasSuffix(" " + reference) {
                return (String(line.prefix { $0 != " " }), [headFile, packed])
            }
        }
        return ("unknown", [headFile])
    }
}
