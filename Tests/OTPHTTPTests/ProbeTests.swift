import Testing

@testable import OTPHTTP

/// `/livez` and `/readyz`, the probes an orchestrator asks, in process.
@Suite struct ProbeTests {
    @Test("/livez answers 200 without a key and asks nothing of the store")
    func live() async {
        let api = InProcessAPI()
        await api.store.shutdown()
        let answer = await api.call("GET", "/livez", key: nil)
        #expect(answer.status == 200)
        #expect(answer.text == #"{"status":"ok"}"#)
        #expect(await api.call("POST", "/livez", key: nil).status == 405)
    }

    @Test("/readyz is 200 while the store takes writes, 503 naming the store once it does not")
    func store() async {
        let api = InProcessAPI()
        let ready = await api.call("GET", "/readyz", key: nil)
        #expect(ready.status == 200)
        #expect(ready.text == #"{"status":"ok","store":"ok"}"#)
        await api.store.shutdown()
        let down = await api.call("GET", "/readyz", key: nil)
        #expect(down.status == 503)
        #expect(down.text == #"{"status":"unavailable","store":"unavailable"}"#)
    }

    @Test("with events, /readyz counts the backlog and is 503 above its bound")
    func backlog() async {
        let api = InProcessAPI(recordsEvents: true, maxEventBacklog: 2)
        let empty = await api.call("GET", "/readyz", key: nil)
        #expect(empty.status == 200)
        #expect(empty.json["eventBacklog"] as? Int == 0)
        for number in 0..<2 {
            #expect(
                await api.call("POST", "/v1/verifications", json: #"{"to":"+1212555010\#(number)"}"#).status
                    == 201)
        }
        #expect(await api.call("GET", "/readyz", key: nil).status == 200, "at the bound")
        #expect(await api.call("POST", "/v1/verifications", json: #"{"to":"+12125550109"}"#).status == 201)
        let over = await api.call("GET", "/readyz", key: nil)
        #expect(over.status == 503)
        #expect(over.json["eventBacklog"] as? Int == 3)
        #expect(over.json["store"] as? String == "ok")
    }

    @Test("readiness: the store must take writes, and a counted backlog must be known and within bounds")
    func rules() {
        #expect(Readiness(storeWritable: true).isReady)
        #expect(!Readiness(storeWritable: false).isReady)
        #expect(Readiness(storeWritable: true, eventBacklog: 5, maxEventBacklog: 5).isReady)
        #expect(!Readiness(storeWritable: true, eventBacklog: 6, maxEventBacklog: 5).isReady)
        #expect(
            !Readiness(storeWritable: true, eventBacklog: nil, maxEventBacklog: 5).isReady, "unknown backlog")
    }

    @Test("/metrics shows the process's gauges, and the event backlog when events are delivered")
    func gauges() async throws {
        let plain = await InProcessAPI().call("GET", "/metrics", key: nil)
        #expect(plain.status == 200)
        #expect(!plain.text.contains("otp_event_backlog"))
        let resident = try #require(Self.value(of: "process_resident_memory_bytes", in: plain.text))
        #expect(resident > 1_000_000, "a Swift process holds more than a megabyte")
        let open = try #require(Self.value(of: "process_open_fds", in: plain.text))
        #expect(open >= 3)
        let started = try #require(Self.value(of: "process_start_time_seconds", in: plain.text))
        #expect(started > 1_700_000_000)

        let api = InProcessAPI(recordsEvents: true, maxEventBacklog: 100)
        #expect(await api.call("POST", "/v1/verifications", json: #"{"to":"+12125550100"}"#).status == 201)
        let withEvents = await api.call("GET", "/metrics", key: nil)
        #expect(Self.value(of: "otp_event_backlog", in: withEvents.text) == 1)
    }

    /// The value of an unlabelled sample.
    static func value(of name: String, in text: String) -> Int? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
    }
}
