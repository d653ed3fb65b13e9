import Foundation
import OTPTestSupport

/// An `otp serve` child process with its own port, files and key; stopped by signal, never left running.
final class ServeProcess: @unchecked Sendable {
    let process = ChildProcess()
    private let output = Pipe()
    private let errors = Pipe()
    private(set) var firstLine = ""

    /// The built `otp` next to the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "otp")
    }

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Self.binary
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OTP_") }
        merged.merge(environment) { _, new in new }
        process.environment = merged
        process.standardOutput = .pipe(output)
        process.standardError = .pipe(errors)
        process.standardInput = .null
        try process.run()
    }

    /// Waits for the first line on standard output (or the end of it).
    func waitForFirstLine() async -> String {
        let handle = output.fileHandleForReading
        let line: String = await withCheckedContinuation { continuation in
            Thread {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    data += chunk
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }.start()
        }
        firstLine = line
        return line
    }

    /// The port from the start line, a JSON line whose message is `listening on http://HOST:PORT`.
    var port: Int? {
        guard let url = ServeLog.listeningURL(firstLine), let colon = url.lastIndex(of: ":") else {
            return nil
        }
        return Int(url[url.index(after: colon)...])
    }

    /// Sends a signal and waits for the exit; returns the status, the rest of stdout and all of stderr.
    func stop(signal: Int32 = SIGTERM) async -> (status: Int32, stdout: String, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        return await finish()
    }

    /// Waits for the process to exit by itself.
    func finish() async -> (status: Int32, stdout: String, stderr: String) {
        let process = self.process
        let output = self.output
        let errors = self.errors
        return await withCheckedContinuation { continuation in
            Thread {
                let rest = output.fileHandleForReading.readDataToEndOfFile()
                let err = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(
                    returning: (
                        process.terminationStatus, String(decoding: rest, as: UTF8.self),
                        String(decoding: err, as: UTF8.self)
                    ))
            }.start()
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            awaitExit(process)
        }
    }
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("otp-serve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
