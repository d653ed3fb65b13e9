import Foundation
import OTPCore
import OTPEngine
import OTPTestSupport
import Testing

@testable import OTPHTTP

/// Keeps `openapi.yaml` equal to the server: routes, methods, statuses, error codes, object fields.
@Suite struct OpenAPIContractTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi.yaml").path

    /// The document as JSON objects, read through PyYAML (which schemathesis brings).
    static func document() throws -> [String: Any] {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)", path,
        ]
        let output = Pipe()
        process.standardOutput = .pipe(output)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        awaitExit(process)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func operations(_ document: [String: Any]) throws -> [String: [String: Any]] {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: [String: [String: Any]] = [:]
        for (path, item) in paths {
            for method in ["get", "post", "put", "patch", "delete", "head", "options"] {
                if let operation = item[method] as? [String: Any] {
                    operations["\(method.uppercased()) \(path)"] = operation
                }
            }
        }
        return operations
    }

    @Test("the document is OpenAPI 3.1 and names the same routes and methods as the server")
    func routes() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let documented = Set(try Self.operations(document).keys)
        let served = Set(APIContract.operations.map { "\($0.method) \($0.template)" })
        #expect(documented == served)
        let paths = Set((document["paths"] as? [String: Any] ?? [:]).keys)
        #expect(paths == Set(APIContract.templates))
        for operation in APIContract.operations where operation.template.hasPrefix("/v1/") {
            let route = try #require(
                Route(path: operation.template.replacingOccurrences(of: "{id}", with: "vf_x")))
            #expect(route.methods.contains(operation.method))
        }
    }

    @Test("each operation documents exactly the statuses and error codes the server may answer")
    func statusesAndCodes() throws {
        let operations = try Self.operations(try Self.document())
        for served in APIContract.operations {
            let documented = try #require(operations["\(served.method) \(served.template)"])
            let responses = try #require(documented["responses"] as? [String: Any])
            #expect(Set(responses.keys.compactMap { Int($0) }) == served.statuses, "\(served.template)")
            let codes = documented["x-error-codes"] as? [String: [String]] ?? [:]
            for (status, names) in codes {
                for name in names {
                    #expect(OTPErrorCode(rawValue: name).httpStatus == Int(status), "\(name) under \(status)")
                }
            }
            #expect(
                Set(codes.values.joined()) == Set(served.errors.map(\.rawValue)),
                "error codes of \(served.method) \(served.template)")
            if let tooMany = responses["429"] as? [String: Any] {
                #expect(tooMany["$ref"] as? String == "#/components/responses/TooManyRequests")
            }
        }
    }

    @Test("the error schema lists every error code, and 429 answers document Retry-After")
    func errorSchema() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        let error = try #require(schemas["Error"]?["properties"] as? [String: [String: Any]])
        let inner = try #require(error["error"]?["properties"] as? [String: [String: Any]])
        let codes = try #require(inner["code"]?["enum"] as? [String])
        #expect(Set(codes) == Set(OTPErrorCode.all.map(\.rawValue)))
        #expect(Set(inner.keys) == ["code", "message", "attemptsLeft", "retryAfter", "reason"])
        let reasons = try #require(inner["reason"]?["enum"] as? [String])
        #expect(Set(reasons) == Set(VerifierError.DestinationRefusal.allCases.map(\.rawValue) + ["pumping"]))
        let responses = try #require(components["responses"] as? [String: [String: Any]])
        let headers = try #require(responses["TooManyRequests"]?["headers"] as? [String: Any])
        #expect(headers["Retry-After"] != nil)
    }

    @Test("the verification schema has exactly the fields the server writes")
    func verificationSchema() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        let properties = try #require(schemas["Verification"]?["properties"] as? [String: Any])
        let sample = Verification(
            id: "vf_x", status: .pending, channel: .sms, to: "+1 •••-•••-0100", codeLength: 6,
            attemptsLeft: 3,
            sendsLeft: 4,
            expiresAt: Date(), resendAvailableAt: nil, createdAt: Date(), ref: "user-1",
            transaction: TransactionDetails(amount: "1", currency: "EUR", payee: "A"))
        let encoded = try #require(
            try JSONSerialization.jsonObject(with: try WireCoding.encoder().encode(sample)) as? [String: Any])
        #expect(Set(properties.keys) == Set(encoded.keys))
        let required = try #require(schemas["Verification"]?["required"] as? [String])
        // A verification without a ref or a transaction writes neither.
        #expect(Set(required) == Set(encoded.keys).subtracting(["ref", "transaction"]))
        let statuses = try #require((properties["status"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(statuses) == Set(VerificationStatus.allCases.map(\.rawValue)))
    }

    @Test("the contract's own check accepts what it lists and refuses what it does not")
    func contractCheck() {
        #expect(APIContract.allows(method: "POST", path: "/v1/verifications", status: 201, code: nil))
        #expect(
            APIContract.allows(
                method: "POST", path: "/v1/verifications/vf_x/check", status: 423, code: "locked"))
        #expect(
            !APIContract.allows(
                method: "POST", path: "/v1/verifications/vf_x/cancel", status: 423, code: "locked"))
        #expect(
            !APIContract.allows(method: "POST", path: "/v1/verifications", status: 400, code: "not_found"))
        #expect(
            APIContract.allows(
                method: "DELETE", path: "/v1/verifications", status: 405, code: "method_not_allowed"))
        #expect(APIContract.allows(method: "GET", path: "/v1/verifications", status: 200, code: nil))
        #expect(
            APIContract.allows(method: "GET", path: "/v1/verifications", status: 403, code: "forbidden"))
        #expect(
            !APIContract.allows(method: "GET", path: "/v1/verifications", status: 201, code: nil))
        #expect(APIContract.allows(method: "GET", path: "/nope", status: 404, code: "not_found"))
        #expect(!APIContract.allows(method: "GET", path: "/v1/verifications/vf_x", status: 201, code: nil))
    }
}
