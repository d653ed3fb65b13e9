import Foundation
import OTPEngine
import OTPPostgres
import OTPTestSupport

/// The PostgreSQL server the tests use: the one `scripts/test.sh` started
/// (`OTP_TEST_POSTGRES_URL`), or else a throwaway one this process starts and stops when it exits.
///
/// Each store gets a schema of its own, so tests run in parallel on one server. Tests never skip
/// for want of PostgreSQL: if neither works, the PostgreSQL tests fail.
enum PostgresTestServer {
    /// The server's URL, found or started on first use.
    static let url: Result<String, ThrowawayPostgres.Unavailable> = findOrStart()

    /// The server this process started, kept alive while the process runs.
    nonisolated(unsafe) private static var started: ThrowawayPostgres?

    /// A fresh schema name.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// `count` handles, each with its own connections, on one fresh schema.
    static func makeStores(
        count: Int, recordsEvents: Bool = false, eventMasking: DestinationMasking = .plain
    ) async throws -> [any VerificationStore] {
        let url = try url.get()
        let schema = freshSchema()
        var stores: [any VerificationStore] = []
        for _ in 0..<count {
            // A deadline for the parallel run, where the server's processes wait for the two cores;
            // connected without blocking one of the test run's few threads.
            stores.append(
                try await PostgresStore.connect(
                    conninfo: url, schema: schema, connections: 2, deadline: .seconds(10),
                    recordsEvents: recordsEvents, eventMasking: eventMasking))
        }
        return stores
    }

    private static func findOrStart() -> Result<String, ThrowawayPostgres.Unavailable> {
        if let url = ProcessInfo.processInfo.environment["OTP_TEST_POSTGRES_URL"], !url.isEmpty {
            return .success(url)
        }
        do {
            let server = try ThrowawayPostgres()
            started = server
            return .success(server.url)
        } catch let error as ThrowawayPostgres.Unavailable {
            return .failure(error)
        } catch {
            return .failure(ThrowawayPostgres.Unavailable(description: "cannot start postgres: \(error)"))
        }
    }
}
