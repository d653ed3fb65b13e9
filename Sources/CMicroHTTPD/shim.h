// Typed wrappers over libmicrohttpd's variadic entry points, which Swift cannot call.
#ifndef OTP_CMICROHTTPD_SHIM_H
#define OTP_CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon bound to `host` (an IPv4 or IPv6 literal) and `port` (0 picks a free one).
/// `pool_size` above 1 asks for a thread pool; `timeout_seconds` drops stalled connections;
/// `connection_limit` caps open connections (libmicrohttpd's default is about a thousand) and
/// `per_address_limit` those of one client address (0: none); `notified` hears each connection
/// start and close; `accept` may refuse a new connection (it is closed at once). Returns NULL when
/// the host is not a literal address or the daemon cannot start.
static inline struct MHD_Daemon *otp_mhd_start(unsigned int flags, const char *host, uint16_t port,
                                               MHD_AcceptPolicyCallback accept,
                                               MHD_AccessHandlerCallback handler, void *handler_cls,
                                               MHD_RequestCompletedCallback completed,
                                               MHD_NotifyConnectionCallback notified, void *cls,
                                               unsigned int pool_size, unsigned int timeout_seconds,
                                               size_t memory_limit, unsigned int connection_limit,
                                               unsigned int per_address_limit) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address = NULL;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    /* A pool of one is no pool: then the polling thread runs the connections itself. */
    if (pool_size > 1) {
        return MHD_start_daemon(flags, port, accept, handler_cls, handler, handler_cls,
                                MHD_OPTION_SOCK_ADDR, address,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                                MHD_OPTION_NOTIFY_CONNECTION, notified, cls,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                                MHD_OPTION_THREAD_POOL_SIZE, pool_size,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, port, accept, handler_cls, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notified, cls,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_END);
}

/// The socket of a connection, or -1 when libmicrohttpd does not tell it.
static inline int otp_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The port the daemon listens on, or 0 when it cannot tell.
static inline uint16_t otp_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Writes the connection's peer address as text into `buffer`; returns 0 on success.
static inline int otp_mhd_client_address(struct MHD_Connection *connection, char *buffer,
                                         size_t size) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const char *written = NULL;
    if (address->sa_family == AF_INET) {
        written = inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer,
                            (socklen_t)size);
    } else if (address->sa_family == AF_INET6) {
        written = inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer,
                            (socklen_t)size);
    }
    return written == NULL ? -1 : 0;
}

/// The state of ``otp_mhd_joined_header``'s walk over the request's header lines.
struct otp_mhd_join {
    const char *name;
    char *buffer;
    size_t size;
    size_t length;
    int lines;
    int overflowed;
};

static inline enum MHD_Result otp_mhd_join_line(void *cls, enum MHD_ValueKind kind, const char *key,
                                                const char *value) {
    (void)kind;
    struct otp_mhd_join *join = (struct otp_mhd_join *)cls;
    if (key == NULL || value == NULL || strcasecmp(key, join->name) != 0) return MHD_YES;
    size_t added = strlen(value) + (join->lines > 0 ? 2 : 0);
    if (join->length + added + 1 > join->size) {
        join->overflowed = 1;
        return MHD_NO;
    }
    if (join->lines > 0) {
        memcpy(join->buffer + join->length, ", ", 2);
        join->length += 2;
    }
    memcpy(join->buffer + join->length, value, strlen(value));
    join->length += strlen(value);
    join->buffer[join->length] = 0;
    join->lines += 1;
    return MHD_YES;
}

/// Every line of the header `name` (any case) in the order received, joined with ", " into
/// `buffer` as RFC 9110 combines a list-valued field sent on several lines. Returns the number of
/// lines (0: none), or -1 when they do not fit in `size` bytes with the final NUL.
static inline int otp_mhd_joined_header(struct MHD_Connection *connection, const char *name,
                                        char *buffer, size_t size) {
    struct otp_mhd_join join = {name, buffer, size, 0, 0, 0};
    if (size == 0) return -1;
    buffer[0] = 0;
    MHD_get_connection_values(connection, MHD_HEADER_KIND, otp_mhd_join_line, &join);
    return join.overflowed ? -1 : join.lines;
}

#endif
