import Foundation

/// Waits at most `seconds` for a child process to exit, polling.
///
/// Test support stops children from async tests, that is on the cooperative pool (two threads
/// on a two-core machine). `Process.waitUntilExit()` there was seen to block for ever after a
/// SIGKILL when both pool threads were waiting at once, hanging the whole run; a bounded poll
/// cannot.
public func awaitExit(_ process: ChildProcess, seconds: Double = 2) {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline {
        usleep(10_000)
    }
}

/// Runs a child process to its end on a thread of its own, and returns its standard output.
///
/// Reading a child's output and waiting for it block; on the cooperative pool (two threads here)
/// that starves every other test, so the blocking happens on a dedicated thread.
public func runToEnd(_ executable: String, _ arguments: [String], seconds: Double = 20) async throws -> String
{
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(
                with: Result {
                    let process = ChildProcess()
                    process.executableURL = URL(fileURLWithPath: executable)
                    process.arguments = arguments
                    let output = Pipe()
                    process.standardOutput = .pipe(output)
                    try process.run()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    awaitExit(process, seconds: seconds)
                    return String(decoding: data, as: UTF8.self)
                })
        }.start()
    }
}
