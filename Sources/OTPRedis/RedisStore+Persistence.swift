import OTPEngine

/// Whether a Redis server keeps its data across a restart, as its configuration says.
public enum RedisPersistence: Sendable, Equatable {
    /// The append-only file or snapshots (`save`) are on.
    case persistent
    /// Neither: `appendonly` is `no` and `save` is empty, so a restart forgets every key.
    case volatile
    /// The configuration could not be read (`CONFIG` renamed, or denied to the user); the reason.
    case unknown(String)
}

extension RedisStore {
    /// Asks the server (`CONFIG GET appendonly`, `CONFIG GET save`) whether it keeps data across a
    /// restart.
    ///
    /// Codes live minutes and may be lost; authenticator factors are meant to last, so a server
    /// that keeps nothing is worth refusing for them.
    /// - Throws: `StoreError` when the server cannot be reached.
    public func persistence() async throws(StoreError) -> RedisPersistence {
        let appendOnly = try await run { connection throws(StoreError) in
            try connection.command("CONFIG", "GET", "appendonly")
        }
        let save = try await run { connection throws(StoreError) in
            try connection.command("CONFIG", "GET", "save")
        }
        return Self.persistence(appendOnly: appendOnly, save: save)
    }

    /// Reads the two `CONFIG GET` replies.
    static func persistence(appendOnly: RedisValue, save: RedisValue) -> RedisPersistence {
        for reply in [appendOnly, save] {
            if case .error(let text) = reply { return .unknown("CONFIG GET was refused (\(text))") }
        }
        guard case .array(let appendParts) = appendOnly, appendParts.count == 2,
            let append = appendParts[1].text,
            case .array(let saveParts) = save, saveParts.count == 2, let schedule = saveParts[1].text
        else { return .unknown("CONFIG GET answered an unexpected reply") }
        return append == "no" && schedule.trimmingCharacters(in: .whitespaces).isEmpty
            ? .volatile : .persistent
    }
}
