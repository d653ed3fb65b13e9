import Foundation

/// Waits at most `seconds` for a child process to exit, polling.
///
/// Test support stops children from async tests, that is on the cooperative pool (two threads
/// on a two-core machine). `Process.waitUntilExit()` there was seen to block for ever after a
/// SIGKILL when both pool threads were waiting at once, hanging the whole run; a bounded poll
/// cannot.
public func awaitExit(_ process: Process, seconds: Double = 2) {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline {
        usleep(10_000)
    }
}
