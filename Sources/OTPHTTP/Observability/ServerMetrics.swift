import Foundation
import OTPCore
import OTPEngine

/// The server's counters and latency histogram, written as Prometheus text.
///
/// Labels are route templates, fixed outcome names, channels and status codes: never a code, a
/// destination or an identifier.
public final class ServerMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    public static let latencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private struct Histogram {
        var buckets = [Int](repeating: 0, count: ServerMetrics.latencyBuckets.count)
        var sum = 0.0
        var count = 0

        /// Counts one observation in every cumulative bucket from `first` on.
        mutating func add(_ seconds: Double, fromBucket first: Int) {
            for index in first..<buckets.count { buckets[index] += 1 }
            sum += seconds
            count += 1
        }
    }

    /// A request's labels, kept apart until the text is written: counting one then needs no string.
    private struct RequestLabels: Hashable {
        var route: String
        var method: String
        var status: Int?

        var text: String {
            "route=\"\(route)\",method=\"\(method)\",status=\"\(status.map(String.init) ?? "none")\""
        }
    }

    private struct State {
        var requests: [RequestLabels: Int] = [:]
        var latency: [String: Histogram] = [:]
        var checks: [String: Int] = [:]
        var sends: [String: Int] = [:]
        var events: [String: Int] = [:]
        var rateLimited: [String: Int] = [:]
        var sendCaps: [String: Int] = [:]
        var guardOutcomes: [String: Int] = [:]
        var destinationsRefused: [String: Int] = [:]
        var fraudDecisions: [String: Int] = [:]
        var smsSegments = 0
    }

    private let state = Locked(State())

    /// Creates empty metrics.
    public init() {}

    /// Counts a finished request and its duration.
    public func recordRequest(route: String, method: String, status: Int?, duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let methodLabel =
            switch method {
            case "GET", "HEAD", "POST": method
            default: "OTHER"
            }
        let key = RequestLabels(route: route, method: methodLabel, status: status)
        let first = Self.latencyBuckets.firstIndex { seconds <= $0 } ?? Self.latencyBuckets.count
        state.withLock { state in
            state.requests[key, default: 0] += 1
            // Changed in place: a copy taken out and written back would copy the buckets each time.
            state.latency[route, default: Histogram()].add(seconds, fromBucket: first)
        }
    }

    /// Counts a lifecycle event's delivery by type and result: `delivered`, `failed` or `dropped`.
    public func recordEvent(type: String, result: String) {
        let key = "type=\"\(type)\",result=\"\(result)\""
        state.withLock { $0.events[key, default: 0] += 1 }
    }

    /// Counts the outcome of a check: `approved` or the error code it got.
    public func recordCheck(outcome: String) {
        state.withLock { $0.checks[outcome, default: 0] += 1 }
    }

    /// Counts a message handed to a provider: `sent` or `failed`.
    public func recordSend(channel: Channel, succeeded: Bool) {
        recordSend(channel: channel, result: succeeded ? "sent" : "failed")
    }

    /// Counts a message by channel and result: `sent`, `failed`, or `test` for a test destination's.
    public func recordSend(channel: Channel, result: String) {
        let key = "channel=\"\(channel.rawValue)\",result=\"\(result)\""
        state.withLock { $0.sends[key, default: 0] += 1 }
    }

    /// Counts a 429 answer by route and error code.
    public func recordRateLimited(route: String, code: OTPErrorCode) {
        let key = "route=\"\(route)\",code=\"\(code.rawValue)\""
        state.withLock { $0.rateLimited[key, default: 0] += 1 }
    }

    /// Counts a start or resend refused because a send cap (`global_sends`, `sends_per_calling_code`) was reached.
    public func recordSendCapReached(_ cap: String) {
        state.withLock { $0.sendCaps["cap=\"\(cap)\"", default: 0] += 1 }
    }

    /// Counts a start refused for its phone number's region or type (`region`, `number_type`).
    public func recordDestinationRefused(reason: String) {
        state.withLock { $0.destinationsRefused["reason=\"\(reason)\"", default: 0] += 1 }
    }

    /// Counts the segments of an SMS handed to a provider: what providers bill.
    public func recordSMSSegments(_ segments: Int) {
        state.withLock { $0.smsSegments += segments }
    }

    /// Counts one start guard outcome: `allowed`, `refused`, `unavailable_open` or `unavailable_closed`.
    public func recordStartGuard(_ outcome: String) {
        state.withLock { $0.guardOutcomes["outcome=\"\(outcome)\"", default: 0] += 1 }
    }

    /// Counts one decision of the pumping guard by region and action: `block` or `refuse`, with
    /// `shadow_` before it when the guard runs in shadow mode.
    public func recordFraudDecision(region: String, action: String) {
        let key = "action=\"\(action)\",region=\"\(region)\""
        state.withLock { $0.fraudDecisions[key, default: 0] += 1 }
    }

    /// The metrics in the Prometheus text exposition format (version 0.0.4).
    ///
    /// With `eventBacklog`, the `otp_event_backlog` gauge: lifecycle events waiting in the outbox.
    /// The process's gauges (resident memory, open files, start time) close the text.
    public func prometheusText(eventBacklog: Int? = nil) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ values: [String: Int]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for key in values.keys.sorted() {
                out += "\(name){\(key)} \(values[key] ?? 0)\n"
            }
        }
        family(
            "otp_http_requests_total", "counter", "HTTP requests by route template, method and status.",
            Dictionary(snapshot.requests.map { ($0.key.text, $0.value) }, uniquingKeysWith: +))
        out += "# HELP otp_http_request_duration_seconds Time from request head to response sent.\n"
        out += "# TYPE otp_http_request_duration_seconds histogram\n"
        for route in snapshot.latency.keys.sorted() {
            guard let histogram = snapshot.latency[route] else { continue }
            for (index, bound) in Self.latencyBuckets.enumerated() {
                out +=
                    "otp_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} "
                    + "\(histogram.buckets[index])\n"
            }
            out +=
                "otp_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
            out += "otp_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
            out += "otp_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)\n"
        }
        family(
            "otp_check_outcomes_total", "counter", "Checks by outcome: approved or the error code.",
            snapshot.checks.reduce(into: [:]) { $0["outcome=\"\($1.key)\""] = $1.value })
        family(
            "otp_sends_total", "counter", "Messages handed to a provider by channel and result.",
            snapshot.sends)
        family(
            "otp_rate_limit_rejections_total", "counter", "429 answers by route template and error code.",
            snapshot.rateLimited)
        family(
            "otp_send_cap_reached_total", "counter", "Starts and resends refused by a send cap, by cap.",
            snapshot.sendCaps)
        family(
            "otp_destinations_refused_total", "counter",
            "Starts refused for the phone number's region or type, by reason.", snapshot.destinationsRefused)
        family(
            "otp_start_guard_total", "counter", "Starts judged by the start guard, by outcome.",
            snapshot.guardOutcomes)
        family(
            "otp_fraud_decisions_total", "counter",
            "Decisions of the SMS pumping guard by region and action (block, refuse; shadow_ in shadow mode).",
            snapshot.fraudDecisions)
        family(
            "otp_events_total", "counter",
            "Lifecycle event deliveries by type and result: delivered, failed (retried later) or dropped.",
            snapshot.events)
        out += "# HELP otp_sms_segments_total SMS segments handed to providers (what they bill).\n"
        out += "# TYPE otp_sms_segments_total counter\n"
        out += "otp_sms_segments_total \(snapshot.smsSegments)\n"
        out += "# HELP otp_build_info The release this server runs: its version and commit.\n"
        out += "# TYPE otp_build_info gauge\n"
        out += "otp_build_info{version=\"\(BuildInfo.version)\",commit=\"\(BuildInfo.commit)\"} 1\n"
        if let eventBacklog {
            out += "# HELP otp_event_backlog Lifecycle events waiting in the store's outbox.\n"
            out += "# TYPE otp_event_backlog gauge\n"
            out += "otp_event_backlog \(eventBacklog)\n"
        }
        out += ProcessGauges.text()
        return out
    }
}
