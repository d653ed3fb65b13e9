import Foundation
import OTPTestSupport

/// A provider stand-in (`Receivers/receiver.py`) running on its own loopback port and directory.
final class Receiver: @unchecked Sendable {
    let port: Int
    let directory: URL
    private let process: ChildProcess
    private let input: Pipe

    /// Starts `receiver.py KIND DIR ARGUMENTS…` and waits, on a thread of its own, for the port it prints.
    static func start(_ kind: String, _ arguments: [String] = []) async throws -> Receiver {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Receiver(kind, arguments) }) }.start()
        }
    }

    private init(_ kind: String, _ arguments: [String]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("otp-receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Receivers/receiver.py")
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, kind, directory.path] + arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = .pipe(input)
        process.standardOutput = .pipe(output)
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        guard
            let port = Int(
                String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw ReceiverError.didNotStart(kind)
        }
        self.port = port
    }

    /// Stops the receiver and removes its directory.
    func stop() {
        try? input.fileHandleForWriting.close()
        // SIGKILL: a child may inherit a signal mask that blocks SIGTERM (it does under the
        // sanitizers), and then terminate() would leave the child running.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        awaitExit(process)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// The JSON records received so far, in order.
    func records() throws -> [[String: Any]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
            .sorted { (Int($0.dropLast(5)) ?? 0) < (Int($1.dropLast(5)) ?? 0) }
        return try names.map { name in
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        }
    }

    /// The raw message of the SMTP record number `index` (from 1).
    func mail(_ index: Int) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("\(index).eml"), encoding: .utf8)
    }

    /// The path of the receiver's self-signed certificate, when it serves TLS.
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
}

enum ReceiverError: Error {
    case didNotStart(String)
}
