import Foundation
import OTPCore
import Testing

@testable import OTPHTTP

/// The one route table: paths matched from it, and the API answered through it in process.
@Suite struct RouteTableTests {
    /// A path for a template, with `value` for its parameter.
    static func path(_ template: String, _ value: String = "vf_abc") -> String {
        template.replacingOccurrences(of: "{id}", with: value).replacingOccurrences(
            of: "{token}", with: value
        )
        .replacingOccurrences(of: "{file}", with: "otp.js")
    }

    @Test("every template matches its own route, with its parameter, and the routes come from the table")
    func everyTemplate() {
        for entry in RouteTable.entries {
            let matched = RouteTable.match(Self.path(entry.template), method: entry.method)
            #expect(matched?.name == entry.name, "\(entry.template)")
            if entry.template.contains("{id}") || entry.template.contains("{token}") {
                #expect(matched?.parameter == "vf_abc", "\(entry.template)")
            }
            let route = Route(path: Self.path(entry.template), method: entry.method)
            let hosted = HostedRoute(path: Self.path(entry.template))
            #expect((route?.template ?? hosted?.template) == entry.template)
            // Routes sharing a template (`/v1/verifications`: a start and a search) answer their
            // methods together.
            #expect(
                (route?.methods ?? hosted?.methods) == RouteTable.methods(sharingTemplateWith: entry.name))
            #expect(route.map { RouteTable.entry($0.name).method } ?? entry.method == entry.method)
            #expect((route == nil) == entry.isHosted, "\(entry.template) is matched by one side only")
        }
        #expect(Set(APIContract.templates) == Set(Route.templates + HostedRoute.templates))
        #expect(APIContract.operations.count == RouteTable.Name.allCases.count)
    }

    @Test(
        "paths that name no route match nothing",
        arguments: [
            "", "v1/verifications", "/", "/v1", "/v1/verifications/", "/v1/verifications//check",
            "/v1/verifications/vf_1/check/", "/v1/verifications/vf_1/approve", "/v1/verifications/a/b/c",
            "/v1/totp/", "/v1/totp/f/delete", "/v/", "/v/assets/evil.js", "/v/t/extra", "/healthz/",
            "/.well-known/other.json", "/V1/verifications", "/v1/verifications/a/b/c/d/e/f/g",
            "/v1/totp/tf_1/recovery-codes/x/y",
        ])
    func unmatched(path: String) {
        #expect(Route(path: path) == nil)
        #expect(HostedRoute(path: path) == nil)
    }

    @Test("the parameter is the segment as given, and a literal is listed before a parameter in its place")
    func parameters() {
        #expect(Route(path: "/v1/verifications/vf_%41") == .status(id: "vf_%41"))
        #expect(Route(path: "/v1/totp/tf_1/recovery-codes") == .totpRecoveryCodes(id: "tf_1"))
        // A segment is cut at bytes, and a parameter that is not ASCII comes back whole.
        #expect(Route(path: "/v1/verifications/vf_é✓/check") == .check(id: "vf_é✓"))
        #expect(HostedRoute(path: "/v/assets/otp.css") == .asset(.stylesheet))
        #expect(HostedRoute(path: "/v/tok/state") == .state(token: "tok"))
        #expect(HostedRoute(path: "/.well-known/jwks.json") == .keySet)
    }

    @Test("in process: every route refuses a method it does not take with 405 and its Allow list")
    func methodNotAllowed() async {
        let api = InProcessAPI()
        for entry in RouteTable.entries where !entry.isHosted {
            let answer = await api.call("PATCH", Self.path(entry.template))
            #expect(answer.status == 405, "\(entry.template)")
            #expect(answer.errorCode == "method_not_allowed")
            #expect(
                answer.header("Allow")
                    == RouteTable.methods(sharingTemplateWith: entry.name).joined(separator: ", "),
                "\(entry.template)")
        }
    }

    @Test("in process: no key is 401 under /v1, an unknown path 404, and /healthz needs no key")
    func keysAndUnknownPaths() async {
        let api = InProcessAPI()
        #expect(
            await api.call("POST", "/v1/verifications", json: #"{"to":"+12125550100"}"#, key: nil).status
                == 401)
        #expect(await api.call("GET", "/v1/verifications/vf_1", key: "wrong").errorCode == "unauthorized")
        #expect(await api.call("GET", "/v1/nothing").errorCode == "not_found")
        #expect(await api.call("GET", "/nothing", key: nil).status == 404)
        #expect(await api.call("GET", "/healthz", key: nil).status == 200)
    }

    @Test("in process: a start, a wrong code with its attempts left, then the right code approves")
    func checkFlow() async throws {
        let api = InProcessAPI(checkFloor: .milliseconds(50))
        let started = await api.call("POST", "/v1/verifications", json: #"{"to":"+12125550100"}"#)
        #expect(started.status == 201)
        let id = try #require(started.json["id"] as? String)
        let code = try #require(api.sender.code(for: id))
        let wrongCode = code == "000000" ? "111111" : "000000"
        let wrong = await api.call(
            "POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(wrongCode)"}"#)
        #expect(wrong.status == 422)
        #expect(wrong.errorCode == "incorrect_code")
        #expect((wrong.json["error"] as? [String: Any])?["attemptsLeft"] as? Int == 2)
        #expect(wrong.heldUntil != nil, "a wrong code's answer waits for the check floor")
        let right = await api.call("POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(code)"}"#)
        #expect(right.status == 200)
        #expect(right.json["status"] as? String == "approved")
        #expect(right.heldUntil != nil, "so does a right one")
        let again = await api.call("POST", "/v1/verifications/\(id)/check", json: #"{"code":"\#(code)"}"#)
        #expect(again.errorCode == "not_pending")
        #expect(try await api.store.record(id: id)?.state == .approved)
    }
}
