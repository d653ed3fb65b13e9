import Foundation
import OTPTestSupport

/// The PostgreSQL server the HTTP tests use: `OTP_TEST_POSTGRES_URL` from `scripts/test.sh`, or a
/// throwaway one this process starts and that stops when it exits.
enum TestPostgres {
    private static let shared:
        Result<(url: String, server: ThrowawayPostgres?), ThrowawayPostgres.Unavailable> = {
            if let url = ProcessInfo.processInfo.environment["OTP_TEST_POSTGRES_URL"], !url.isEmpty {
                return .success((url, nil))
            }
            do {
                let server = try ThrowawayPostgres()
                return .success((server.url, server))
            } catch {
                return .failure(ThrowawayPostgres.Unavailable(description: "cannot start postgres: \(error)"))
            }
        }()

    /// The shared server's URL.
    static func url() throws -> String { try shared.get().url }

    /// A fresh schema name, so each harness has empty tables.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}
