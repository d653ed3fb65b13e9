import Foundation
import OTPEngine
import OTPPostgres
import OTPRedis
import OTPSQLite
import Testing

/// The stores the conformance suite runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case redis
    case postgres

    var testDescription: String { rawValue }

    /// `count` handles on one fresh, empty store; SQLite, Redis and PostgreSQL give each its own connection.
    func makeStores(count: Int = 1) async throws -> [any VerificationStore] {
        switch self {
        case .memory:
            let store = MemoryStore()
            return Array(repeating: store, count: count)
        case .sqlite:
            let path = temporaryDirectory() + "/otp.sqlite3"
            return try (0..<count).map { _ in try SQLiteStore(path: path) }
        case .redis:
            return try RedisTestServer.makeStores(count: count)
        case .postgres:
            return try await PostgresTestServer.makeStores(count: count)
        }
    }

    /// One fresh, empty store.
    func makeStore() async throws -> any VerificationStore {
        try await makeStores(count: 1)[0]
    }

    /// `count` handles on one fresh, empty store that records lifecycle events, their destinations
    /// masked by `masking`.
    func makeEventStores(
        count: Int, masking: DestinationMasking = .plain
    ) async throws -> [any VerificationStore] {
        switch self {
        case .memory:
            let store = MemoryStore(recordsEvents: true, eventMasking: masking)
            return Array(repeating: store, count: count)
        case .sqlite:
            let path = temporaryDirectory() + "/otp.sqlite3"
            return try (0..<count).map { _ in
                try SQLiteStore(path: path, recordsEvents: true, eventMasking: masking)
            }
        case .redis:
            return try RedisTestServer.makeStores(count: count, recordsEvents: true, eventMasking: masking)
        case .postgres:
            return try await PostgresTestServer.makeStores(
                count: count, recordsEvents: true, eventMasking: masking)
        }
    }

    /// One fresh, empty store that records lifecycle events, their destinations masked by `masking`.
    func makeEventStore(masking: DestinationMasking = .plain) async throws -> any VerificationStore {
        try await makeEventStores(count: 1, masking: masking)[0]
    }
}

/// Opens SQLite stores for tests outside the conformance suite.
enum SQLiteStoreFactory {
    static func open(_ path: String) throws -> any VerificationStore {
        try SQLiteStore(path: path)
    }
}

/// Opens Redis stores for tests outside the conformance suite.
enum RedisStoreFactory {
    static func open(port: Int) throws -> any VerificationStore {
        try RedisStore(host: "127.0.0.1", port: port, connections: 1)
    }
}
