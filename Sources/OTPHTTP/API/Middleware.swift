import OTPCore
import OTPEngine

/// A request on its way through the middleware to its route's handler, with what the middleware
/// learnt about it.
struct RequestContext: Sendable {
    /// The request as it arrived.
    let request: HTTPRequest
    /// When the handler took the request; the check floor counts from here.
    let arrival: ContinuousClock.Instant
    /// The route the path names, or `nil` when it names none.
    let route: RouteTable.Name?
    /// The caller, once an API key was read (`nil` for the hosted page's routes).
    var caller: APIKeys.Caller?
    /// The client's address, once read.
    var address = ""
    /// The request's id, once given.
    var requestID = ""

    /// The route's template, for logs and metrics; unmatched paths share one label.
    var template: String { route.map { RouteTable.entry($0).template } ?? Route.unmatched }
}

/// One concern that every request of a chain passes through, written once: it answers the request
/// itself, or hands it to `next` and may change the reply that comes back.
///
/// The server's middleware, in the order a `/v1` request meets them: ``RequestIDs``, ``APIKeyCheck`` (401),
/// ``RouteCheck`` (404, 405 with `Allow`), ``BodyLimit`` (413), ``ClientAddressReader``,
/// ``CheckFloor`` (holds the answers of the routes that judge a code); the hosted page's routes
/// meet ``RequestIDs``, ``BodyLimit``, ``PageHeaders`` (its security headers), ``CheckFloor``, ``RouteCheck`` and
/// ``ClientAddressReader``. Request logging and metrics take every request once it is complete,
/// with its duration, in the server's completion callback.
protocol Middleware: Sendable {
    /// Answers the request, or passes it on to `next`.
    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply
}

/// Middleware in order, before a route's handler.
struct MiddlewareChain: Sendable {
    private let middleware: [any Middleware]

    /// The chain: the first middleware sees the request first and the reply last.
    init(_ middleware: [any Middleware]) {
        self.middleware = middleware
    }

    /// Runs the request through every middleware, then `handler`, unless one answers first.
    func respond(
        to context: inout RequestContext, handler: (inout RequestContext) -> HTTPReply
    ) -> HTTPReply {
        respond(from: 0, to: &context, handler: handler)
    }

    private func respond(
        from index: Int, to context: inout RequestContext, handler: (inout RequestContext) -> HTTPReply
    ) -> HTTPReply {
        guard index < middleware.count else { return handler(&context) }
        return middleware[index].respond(to: &context) { context in
            respond(from: index + 1, to: &context, handler: handler)
        }
    }
}

/// Every `/v1` request needs an API key: 401 without one, before anything else is judged.
struct APIKeyCheck: Middleware {
    let keys: KeyRing

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        context.caller = keys.current.caller(authorization: context.request.headers["authorization"])
        if context.caller == nil, Route.needsKey(context.request.path) {
            return .now(APIResponses.error(APIResponses.unauthorized, route: context.template))
        }
        return next(&context)
    }
}

/// A path that names no route is 404; a method the route does not take is 405 with `Allow`.
struct RouteCheck: Middleware {
    /// Routes this listener does not serve (`/metrics` when another listener serves it).
    var hidden: Set<RouteTable.Name> = []

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        guard let route = context.route, !hidden.contains(route) else {
            return .now(APIResponses.error(APIResponses.routeNotFound, route: Route.unmatched))
        }
        guard RouteTable.entry(route).methods.contains(context.request.method) else {
            let methods = RouteTable.methods(sharingTemplateWith: route)
            var response = APIResponses.error(APIResponses.methodNotAllowed(methods), route: context.template)
            response.headers.append(("Allow", methods.joined(separator: ", ")))
            return .now(response)
        }
        return next(&context)
    }
}

/// A body over the server's limit is 413, before its route reads it.
struct BodyLimit: Middleware {
    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        guard context.request.bodyTooLarge else { return next(&context) }
        return .now(APIResponses.error(APIResponses.payloadTooLarge, route: context.template))
    }
}

/// Reads the client's address once: the socket's peer, or behind `trustedProxies` proxies of your
/// own the `X-Forwarded-For` entry that many places from the right (the one the outermost proxy
/// appended).
///
/// Entries further left were written by the client and are never used. A missing or short header,
/// or an entry that is not an IP address, falls back to the peer.
struct ClientAddressReader: Middleware {
    let trustedProxies: Int

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        context.address = address(of: context.request)
        return next(&context)
    }

    /// The address of a request, as the middleware reads it.
    func address(of request: HTTPRequest) -> String {
        guard trustedProxies > 0, let forwarded = request.headers["x-forwarded-for"] else {
            return request.peerAddress
        }
        let entries = forwarded.split(separator: ",", omittingEmptySubsequences: false)
        guard entries.count >= trustedProxies else { return request.peerAddress }
        let address = entries[entries.count - trustedProxies].trimmingCharacters(in: .whitespaces)
        guard ClientAddress.isIPAddress(address) else { return request.peerAddress }
        return address
    }
}

/// Holds every answer of the routes that judge a code (right, wrong, unknown or malformed) until
/// the floor has passed since the request arrived, so the time an answer takes tells nothing.
struct CheckFloor: Middleware {
    let floor: Duration

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        let reply = next(&context)
        guard floor > .zero, let route = context.route, route.isHeldToCheckFloor else { return reply }
        return reply.notBefore(context.arrival.advanced(by: floor))
    }
}

/// Adds the hosted page's security headers to every answer of the page's own routes, replacing
/// any `Cache-Control`.
struct PageHeaders: Middleware {
    let headers: [(name: String, value: String)]

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        let reply = next(&context)
        guard let route = context.route, route.hasPageHeaders else { return reply }
        let headers = self.headers
        return reply.map { Self.adding(headers, to: $0) }
    }

    /// The response with `headers` added, any `Cache-Control` replaced.
    static func adding(_ headers: [(name: String, value: String)], to response: HTTPResponse) -> HTTPResponse
    {
        var response = response
        response.headers.removeAll { $0.name == "Cache-Control" }
        response.headers += headers
        return response
    }
}

/// Gives every request an id, echoed in `X-Request-Id` and written on its log line.
///
/// A sane incoming `X-Request-Id` (1 to 128 letters, digits and `- _ . : /`) is kept, else one is
/// made, so a client's report and the server's log meet.
struct RequestIDs: Middleware {
    /// Makes an id for a request that brought none.
    let make: @Sendable () -> String

    func respond(to context: inout RequestContext, next: (inout RequestContext) -> HTTPReply) -> HTTPReply {
        let incoming = context.request.headers["x-request-id"]
        let id = incoming.flatMap { Self.isSane($0) ? $0 : nil } ?? make()
        context.requestID = id
        return next(&context).map { response in
            var response = response
            response.headers.append(("X-Request-Id", id))
            response.requestID = id
            return response
        }
    }

    /// Whether an incoming id is kept as it is: short, and nothing a log line or header could
    /// misread.
    static func isSane(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                    UInt8(ascii: "."),
                    UInt8(ascii: ":"), UInt8(ascii: "/"):
                    true
                default: false
                }
            }
    }

    /// Ids that never repeat within a process and differ between processes: a random prefix made
    /// once, then a counter, cheap enough for every request.
    static func sequence(prefix: String) -> @Sendable () -> String {
        let counter = Locked<UInt64>(0)
        return {
            let next = counter.withLock { value -> UInt64 in
                value += 1
                return value
            }
            return prefix + "-" + String(next, radix: 36)
        }
    }

    /// A prefix of 10 random letters and digits.
    static func randomPrefix() -> String {
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
        var generator = SystemRandomNumberGenerator()
        return String(
            decoding: (0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] },
            as: UTF8.self)
    }
}
