import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory for one test's files.
func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "otp-engine-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite struct SenderTests {
    @Test(
        "an outbox line is byte for byte what the wire encoder writes, escapes and all",
        arguments: [
            "Your code is 123456", "Quotes \" and \\ backslash / slash", "Lines\nand\ttabs\r\u{08}\u{0C}",
            "Control \u{01}\u{1F} characters", "Ünïcødé • ☃ 😀 日本語 عربي", "",
        ])
    func outboxLineMatchesEncoder(body: String) throws {
        for seconds in [0.0, 1_795_000_000.123, 1_795_000_000.9999, 4_102_444_799.5] {
            let entry = OutboxSender.Entry(
                verificationId: "vf_\u{7F}x\"y", channel: .email, to: "a+b@example.org", body: body,
                sentAt: Date(timeIntervalSince1970: seconds))
            let encoded = try WireCoding.encoder().encode(entry)
            #expect(String(decoding: entry.json, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
        }
    }

    @Test(
        "whole numbers are written as the encoder writes them",
        arguments: [0, 7, -1, 10, 99, 100, -100, 1_000_000, Int.max, Int.min, Int.min + 1])
    func numbers(value: Int) throws {
        var out: [UInt8] = []
        WireJSON.number(value, into: &out)
        let encoded = try JSONEncoder().encode(value)
        #expect(String(decoding: out, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }

    @Test("the outbox appends one JSON object per message with the full destination")
    func outbox() async throws {
        let path = temporaryDirectory() + "/outbox.jsonl"
        let clock = ManualClock()
        let sender = OutboxSender(path: path, now: { clock.date })
        let message = OutgoingMessage(
            verificationID: "vf_a", channel: .sms, to: "+15555550100", subject: "",
            text: "Your code is 482019.",
            html: nil)
        try await sender.send(message)
        clock.advance(by: .milliseconds(1500))
        var second = message
        second.verificationID = "vf_b"
        second.channel = .email
        second.to = "ana@example.org"
        try await sender.send(second)

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        #expect(Set(object.keys) == ["verificationId", "channel", "to", "body", "sentAt"])
        #expect(object["to"] == "+15555550100")
        #expect(object["channel"] == "sms")
        #expect(object["body"] == "Your code is 482019.")
        #expect(object["sentAt"] == WireCoding.format(ManualClock().date))

        let entries = try OutboxSender.entries(path: path)
        #expect(entries.map(\.verificationId) == ["vf_a", "vf_b"])
        #expect(entries[1].to == "ana@example.org")
        #expect(entries[1].sentAt == clock.date)

        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test("parallel sends to one outbox never interleave lines")
    func outboxParallel() async throws {
        let path = temporaryDirectory() + "/outbox.jsonl"
        let sender = OutboxSender(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await sender.send(
                        OutgoingMessage(
                            verificationID: "vf_\(index)", channel: .sms, to: "+15555550100", subject: "",
                            text: String(repeating: "x", count: 2000), html: nil))
                }
            }
            try await group.waitForAll()
        }
        #expect(Set(try OutboxSender.entries(path: path).map(\.verificationId)).count == 200)
    }

    @Test("an outbox that cannot be opened is a delivery error")
    func outboxFailure() async {
        let sender = OutboxSender(path: "/nonexistent-dir-for-otp-tests/outbox.jsonl")
        await #expect(throws: DeliveryError.self) {
            try await sender.send(
                OutgoingMessage(
                    verificationID: "vf_a", channel: .sms, to: "+1", subject: "", text: "", html: nil))
        }
    }

    @Test("an outbox deleted while the sender holds it open is created again at the next line")
    func outboxDeleted() async throws {
        let path = temporaryDirectory() + "/outbox.jsonl"
        let sender = OutboxSender(path: path)
        try await sender.send(Self.message("vf_before"))
        try FileManager.default.removeItem(atPath: path)
        try await sender.send(Self.message("vf_after"))
        #expect(try OutboxSender.entries(path: path).map(\.verificationId) == ["vf_after"])
        // Truncated in place, the same open file takes the next line at its start.
        #expect(truncate(path, 0) == 0)
        try await sender.send(Self.message("vf_truncated"))
        #expect(try OutboxSender.entries(path: path).map(\.verificationId) == ["vf_truncated"])
    }

    @Test("an outbox renamed away (a log rotation) is let go: the next line goes to a new file at the path")
    func outboxRotated() async throws {
        let directory = temporaryDirectory()
        let path = directory + "/outbox.jsonl"
        let sender = OutboxSender(path: path)
        try await sender.send(Self.message("vf_before"))
        try FileManager.default.moveItem(atPath: path, toPath: directory + "/outbox.jsonl.1")
        try await sender.send(Self.message("vf_after"))
        #expect(try OutboxSender.entries(path: path).map(\.verificationId) == ["vf_after"])
        #expect(
            try OutboxSender.entries(path: directory + "/outbox.jsonl.1").map(\.verificationId) == [
                "vf_before"
            ])
        // A new file put in its place by someone else is written to as well.
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        try await sender.send(Self.message("vf_replaced"))
        #expect(try OutboxSender.entries(path: path).map(\.verificationId) == ["vf_replaced"])
    }

    @Test(
        "the outbox file is opened once and held, not opened for every line",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "reads /proc/self/fd"))
    func outboxHeldOpen() async throws {
        let path = temporaryDirectory() + "/outbox.jsonl"
        func descriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path
            }.count
        }
        let sender = OutboxSender(path: path)
        #expect(try descriptors() == 0)
        for index in 0..<5 { try await sender.send(Self.message("vf_\(index)")) }
        #expect(try descriptors() == 1)
        #expect(try OutboxSender.entries(path: path).count == 5)
    }

    @Test("an outbox that could not be opened is opened at a later line once it can be")
    func outboxOpensLater() async throws {
        let directory = temporaryDirectory() + "/later"
        let sender = OutboxSender(path: directory + "/outbox.jsonl")
        let error = await #expect(throws: DeliveryError.self) {
            try await sender.send(Self.message("vf_lost"))
        }
        #expect(error?.reason.contains("could not open the outbox file") == true)
        #expect(error?.reason.contains("No such file or directory") == true)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try await sender.send(Self.message("vf_kept"))
        #expect(
            try OutboxSender.entries(path: directory + "/outbox.jsonl").map(\.verificationId) == ["vf_kept"])
    }

    @Test(
        "a line the outbox cannot take is a delivery error with the system's reason",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full is Linux's"))
    func outboxFull() async throws {
        let sender = OutboxSender(path: "/dev/full")
        let error = await #expect(throws: DeliveryError.self) {
            try await sender.send(Self.message("vf_full"))
        }
        #expect(error?.reason.contains("could not write the outbox file") == true)
        #expect(error?.reason.contains("No space left on device") == true)
    }

    private static func message(_ id: String) -> OutgoingMessage {
        OutgoingMessage(
            verificationID: id, channel: .sms, to: "+15555550100", subject: "", text: "Your code is 482019.",
            html: nil)
    }

    @Test("the console sender delivers without throwing")
    func console() async throws {
        try await ConsoleSender().send(
            OutgoingMessage(
                verificationID: "vf_console", channel: .sms, to: "+15555550100", subject: "",
                text: "Your OTPKit code is 000000. It expires in 5 minutes.", html: nil))
    }
}

@Suite struct SecretKeyTests {
    @Test("a missing key file is created with 32 random bytes and mode 0600, then read back")
    func createThenLoad() throws {
        let path = temporaryDirectory() + "/otp.secret"
        var generator = SeededGenerator(seed: 1)
        let created = try SecretKey.loadOrCreate(path: path, using: &generator)
        #expect(created.count == 32)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try SecretKey.loadOrCreate(path: path) == created)
        let fresh = try SecretKey.loadOrCreate(path: temporaryDirectory() + "/other.secret")
        #expect(fresh != created)
        #expect(fresh.count == 32)
    }

    @Test("a key file that is too short, or cannot be made, is refused")
    func refused() throws {
        let path = temporaryDirectory() + "/short.secret"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(throws: SecretKey.LoadError.self) { try SecretKey.loadOrCreate(path: path) }
        #expect(throws: SecretKey.LoadError.self) {
            try SecretKey.loadOrCreate(path: "/nonexistent-dir-for-otp-tests/otp.secret")
        }
        let big = temporaryDirectory() + "/big.secret"
        try Data(repeating: 7, count: 5000).write(to: URL(fileURLWithPath: big))
        chmod(big, 0o600)
        #expect(throws: SecretKey.LoadError.self) { try SecretKey.load(path: big) }
    }

    @Test(
        "a key file others may read, or its group may write, is refused, naming the fix",
        arguments: [0o644, 0o604, 0o620, 0o660, 0o650, 0o641, 0o666])
    func refusesShared(mode: Int) throws {
        let path = temporaryDirectory() + "/shared.secret"
        try Data(repeating: 9, count: 32).write(to: URL(fileURLWithPath: path))
        chmod(path, mode_t(mode))
        #expect(throws: SecretKey.LoadError.self) { try SecretKey.load(path: path) }
        do {
            _ = try SecretKey.load(path: path)
        } catch {
            #expect("\(error)".contains("chmod 600"))
        }
        chmod(path, 0o600)
        #expect(try SecretKey.load(path: path) == Array(repeating: 9, count: 32))
        chmod(path, 0o400)
        #expect(try SecretKey.load(path: path).count == 32)
    }

    @Test("private files: the owner alone, or root's file read by its group too")
    func privateModes() {
        for mode: UInt32 in [0o600, 0o400, 0o200, 0o700, 0o000] {
            #expect(SecretKey.isPrivate(mode: mode, owner: 1000))
            #expect(SecretKey.isPrivate(mode: mode, owner: 0))
        }
        for mode: UInt32 in [0o640, 0o440, 0o740] {
            #expect(SecretKey.isPrivate(mode: mode, owner: 0), "root's file, read by its group")
            #expect(!SecretKey.isPrivate(mode: mode, owner: 1000), "another owner's group may not read")
        }
        for mode: UInt32 in [0o660, 0o620, 0o650, 0o610, 0o604, 0o644, 0o601, 0o602, 0o666, 0o777] {
            #expect(!SecretKey.isPrivate(mode: mode, owner: 0))
            #expect(!SecretKey.isPrivate(mode: mode, owner: 1000))
        }
    }

    @Test(
        "a key file root owns and its group may read is taken; the same mode on another owner's file is not")
    func groupReadableWhenRootOwns() throws {
        let path = temporaryDirectory() + "/mounted.secret"
        try Data(repeating: 5, count: 32).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o640)
        if getuid() == 0 {
            // Made by root, so root owns it: as a container platform mounts a secret.
            #expect(try SecretKey.load(path: path) == Array(repeating: 5, count: 32))
            chmod(path, 0o440)
            #expect(try SecretKey.load(path: path).count == 32)
            // Handed to another user (nobody), the same mode lets a group that is not root's read it.
            try #require(chown(path, 65_534, 65_534) == 0)
        }
        #expect(throws: SecretKey.LoadError.self) { try SecretKey.load(path: path) }
        do {
            _ = try SecretKey.load(path: path)
        } catch {
            #expect("\(error)".contains("chmod 600 \(path)"))
        }
    }
}
