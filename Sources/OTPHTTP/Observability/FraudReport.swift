import Foundation
import OTPCore
import OTPEngine

/// How the server reports each decision of the pumping guard: a JSON log line with its figures,
/// the `otp_fraud_decisions_total{region,action}` metric, and for a block the `fraud_blocked`
/// lifecycle event.
enum FraudReport {
    /// The observer a server's verifier calls with each decision.
    static func reporter(
        metrics: ServerMetrics, log: RequestLog, events: EventsConfiguration?
    ) -> @Sendable (FraudDecision) -> Void {
        { decision in
            metrics.recordFraudDecision(region: decision.subject.region, action: action(decision))
            log.log(
                decision.action == .block ? .warning : .info, message(decision),
                fields: [("event", "fraud_decision")] + Array(fields(decision)))
            guard decision.action == .block, let events else { return }
            let event = LifecycleEvent.fraudBlocked(decision)
            // Posted once, by the server whose step made the block; not kept in the outbox.
            Task {
                let delivered = await events.deliver(event)
                metrics.recordEvent(type: event.kind.rawValue, result: delivered ? "delivered" : "dropped")
            }
        }
    }

    /// The log line's message: what the guard did, and to which prefix or region.
    static func message(_ decision: FraudDecision) -> String {
        let target =
            decision.level == .region
            ? "region \(decision.subject.region)"
            : "prefix \(decision.subject.prefix) (\(decision.subject.region))"
        let shadow = decision.mode == .shadow ? " (shadow: nothing refused)" : ""
        switch decision.action {
        case .block: return "the pumping guard blocks \(target): its conversion collapsed\(shadow)"
        case .refuse: return "the pumping guard refuses a start to \(target), which it blocks\(shadow)"
        }
    }

    /// The metric's action: `block` or `refuse`, `shadow_` before it in shadow mode.
    static func action(_ decision: FraudDecision) -> String {
        (decision.mode == .shadow ? "shadow_" : "") + decision.action.rawValue
    }

    /// The log line's fields: the decision, the subject (region and prefix, never a number), the
    /// block, and for a block the figures it was judged on.
    static func fields(_ decision: FraudDecision) -> KeyValuePairs<String, String> {
        let judgement = decision.judgement
        let figure: (Double?) -> String = { value in value.map { String(format: "%.4f", $0) } ?? "none" }
        return [
            "action": action(decision), "mode": decision.mode.rawValue, "level": decision.level.rawValue,
            "region": decision.subject.region, "prefix": decision.subject.prefix,
            "channel": decision.subject.channel.rawValue,
            "blockedUntil": ResponseJSON.timestamp(decision.block.until),
            "repeat": String(decision.block.repeats),
            "sends": judgement.map { String($0.sends) } ?? "none",
            "approvals": judgement.map { String($0.approvals) } ?? "none",
            "conversion": figure(judgement?.conversion), "baseline": figure(judgement?.baseline),
            "threshold": figure(judgement?.threshold),
        ]
    }
}
