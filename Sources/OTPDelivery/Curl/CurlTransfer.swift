import CCurl
import Foundation
import OTPCore
import OTPEngine

/// libcurl's process-wide set-up, done once before the first transfer.
private let curlGlobalSetUp: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))

/// What a finished transfer reports: the protocol's response code and the first bytes of the body.
struct CurlResponse: Sendable {
    /// The last HTTP status or SMTP reply code.
    var code: Int
    /// Up to a kilobyte of the response body, for HTTP.
    var body: String
}

/// One libcurl easy handle, alive for a single transfer on a single thread.
///
/// It is only ever used inside `CurlTransfer.run`'s closure, on the thread that runs it.
struct CurlHandle {
    fileprivate let raw: UnsafeMutableRawPointer
    fileprivate var lists: [UnsafeMutablePointer<curl_slist>] = []
    fileprivate var uploads: [UnsafeMutablePointer<otp_curl_upload>] = []
    fileprivate var buffers: [UnsafeMutableRawBufferPointer] = []

    /// Sets an option that takes a number.
    func set(_ option: CURLoption, _ value: Int) throws(DeliveryError) {
        try check(otp_curl_set_long(raw, option, value), option)
    }

    /// Sets an option that takes a string; libcurl keeps its own copy.
    func set(_ option: CURLoption, _ value: String) throws(DeliveryError) {
        try check(otp_curl_set_string(raw, option, value), option)
    }

    /// Sets an option that takes a list of strings, kept alive until the transfer ends.
    mutating func set(_ option: CURLoption, list: [String]) throws(DeliveryError) {
        var head: UnsafeMutablePointer<curl_slist>?
        for item in list {
            guard let next = curl_slist_append(head, item) else {
                curl_slist_free_all(head)
                throw DeliveryError("out of memory building a request")
            }
            head = next
        }
        guard let head else { return }
        lists.append(head)
        try check(otp_curl_set_pointer(raw, option, UnsafeMutableRawPointer(head)), option)
    }

    /// Makes the transfer upload these bytes, kept alive until the transfer ends.
    mutating func upload(_ bytes: [UInt8]) throws(DeliveryError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        buffer.copyBytes(from: bytes)
        buffers.append(buffer)
        let upload = UnsafeMutablePointer<otp_curl_upload>.allocate(capacity: 1)
        upload.initialize(
            to: otp_curl_upload(
                data: buffer.baseAddress?.assumingMemoryBound(to: CChar.self), length: bytes.count, offset: 0)
        )
        uploads.append(upload)
        try check(otp_curl_set_upload(raw, upload), CURLOPT_UPLOAD)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(DeliveryError) {
        guard code == CURLE_OK else {
            throw DeliveryError("libcurl refused option \(option.rawValue): \(describe(code))")
        }
    }

    fileprivate func release() {
        for list in lists { curl_slist_free_all(list) }
        for upload in uploads { upload.deallocate() }
        for buffer in buffers { buffer.deallocate() }
        curl_easy_cleanup(raw)
    }
}

/// The text libcurl gives for a result code; it names no destination and no code.
func describe(_ code: CURLcode) -> String {
    guard let text = curl_easy_strerror(code) else { return "libcurl error \(code.rawValue)" }
    return String(cString: text)
}

/// Runs blocking libcurl transfers, each on a thread of its own.
///
/// Not on a concurrent dispatch queue: libdispatch sizes those by the core count and shares the
/// threads with Swift's cooperative pool, so two blocked transfers would stall every task for a while.
enum CurlTransfer {
    /// Configures a fresh handle with `configure`, performs the transfer and reports its response.
    ///
    /// A transport failure (refused connection, timeout, TLS, a rejected SMTP command) throws a
    /// `DeliveryError` whose reason starts with `what`.
    /// A bound on the transfers in flight at once for one kind of call, across the process.
    ///
    /// Each transfer holds a thread for as long as its endpoint takes (up to its timeout). Past
    /// the bound a call fails at once, so a hanging endpoint and a burst of starts cannot create
    /// thousands of threads; the server answers quickly instead. Codes, start guards and events
    /// each have their own pool: a slow guard or event endpoint never uses up the codes' transfers.
    final class Pool: Sendable {
        /// The most transfers in flight at once.
        let maximumInFlight: Int
        /// Transfers in flight now.
        let inFlight = Locked(0)

        init(maximumInFlight: Int) {
            self.maximumInFlight = maximumInFlight
        }

        /// Counts a transfer in, or `false` when the pool is full.
        func admit() -> Bool {
            inFlight.withLock { count in
                guard count < maximumInFlight else { return false }
                count += 1
                return true
            }
        }

        /// Counts a finished transfer out.
        func release() {
            inFlight.withLock { $0 -= 1 }
        }

        /// The codes' deliveries: SMS, SMTP and the delivery webhook.
        static let delivery = Pool(maximumInFlight: 64)
        /// Start guard calls.
        static let startGuard = Pool(maximumInFlight: 32)
        /// Event webhook posts: the deliverer's batch (16 by default) and as many again for the
        /// pumping guard's `fraud_blocked` posts, which go to the same endpoint beside it.
        static let events = Pool(maximumInFlight: 32)
    }

    static func run(
        _ what: String, pool: Pool = .delivery,
        configure: @escaping @Sendable (inout CurlHandle) throws(DeliveryError) -> Void
    ) async throws(DeliveryError) -> CurlResponse {
        guard pool.admit() else {
            throw DeliveryError("\(what): \(pool.maximumInFlight) transfers are already in flight")
        }
        let result: Result<CurlResponse, DeliveryError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                let outcome = perform(what, configure: configure)
                pool.release()
                continuation.resume(returning: outcome)
            }
            thread.name = "otp-curl"
            thread.start()
        }
        return try result.get()
    }

    private static func perform(
        _ what: String, configure: (inout CurlHandle) throws(DeliveryError) -> Void
    ) -> Result<CurlResponse, DeliveryError> {
        guard curlGlobalSetUp == CURLE_OK else {
            return .failure(DeliveryError("\(what): libcurl could not start"))
        }
        guard let raw = curl_easy_init() else {
            return .failure(DeliveryError("\(what): libcurl could not create a handle"))
        }
        var handle = CurlHandle(raw: raw)
        defer { handle.release() }
        let sink = UnsafeMutablePointer<otp_curl_sink>.allocate(capacity: 1)
        defer { sink.deallocate() }
        sink.initialize(to: otp_curl_sink())
        do throws(DeliveryError) {
            try handle.set(CURLOPT_NOSIGNAL, 1)
            try configure(&handle)
            guard otp_curl_set_sink(raw, sink) == CURLE_OK else {
                throw DeliveryError("libcurl refused the response sink")
            }
        } catch {
            return .failure(DeliveryError("\(what): \(error.reason)"))
        }
        let code = curl_easy_perform(raw)
        var status = 0
        _ = otp_curl_get_long(raw, CURLINFO_RESPONSE_CODE, &status)
        guard code == CURLE_OK else {
            let reply = status > 0 ? " (reply \(status))" : ""
            return .failure(
                DeliveryError("\(what): \(describe(code))\(reply)", status: status > 0 ? status : nil))
        }
        let body = withUnsafeBytes(of: &sink.pointee.data) { raw in
            String(decoding: raw.prefix(min(sink.pointee.length, raw.count)), as: UTF8.self)
        }
        return .success(CurlResponse(code: status, body: body))
    }
}

extension Duration {
    /// The duration in whole milliseconds, at least 1.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
