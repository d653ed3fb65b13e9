/// What a middleware does to a reply, whichever kind it is: change its response when it is made,
/// or hold it until an instant. A route's handler returns its reply; the dispatcher applies what
/// the route's entry in ``RouteTable`` asks for, once, in one place.
extension HTTPReply {
    /// The same reply with `transform` applied to its response, whenever the response is made.
    func map(_ transform: @escaping @Sendable (HTTPResponse) -> HTTPResponse) -> HTTPReply {
        switch self {
        case .now(let response): .now(transform(response))
        case .later(let work): .later { transform(await work()) }
        case .at(let instant, let response): .at(instant, transform(response))
        case .deferred(let start):
            .deferred { answer in
                start(
                    HTTPAnswer { response, notBefore in answer.send(transform(response), notBefore: notBefore)
                    })
            }
        }
    }

    /// The same reply, sent no earlier than `earliest`.
    ///
    /// A response made at once waits on the server's timer thread; one made by work or a callback
    /// is sent when both it and the instant have come. No task sleeps for it.
    func notBefore(_ earliest: ContinuousClock.Instant) -> HTTPReply {
        switch self {
        case .now(let response): .at(earliest, response)
        case .at(let instant, let response): .at(max(instant, earliest), response)
        case .later(let work):
            .deferred { answer in
                Task { answer.send(await work(), notBefore: earliest) }
            }
        case .deferred(let start):
            .deferred { answer in
                start(
                    HTTPAnswer { response, notBefore in
                        answer.send(response, notBefore: notBefore.map { max($0, earliest) } ?? earliest)
                    })
            }
        }
    }
}
