// hiredis for OTPRedis, with accessors for what imports awkwardly into Swift.
#ifndef OTPKIT_CHIREDIS_SHIM_H
#define OTPKIT_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>

// Connects with a timeout given in milliseconds.
static inline redisContext *otp_redis_connect(const char *host, int port, long timeout_ms) {
    struct timeval timeout = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisConnectWithTimeout(host, port, timeout);
}

// Sets the timeout of each command in milliseconds.
static inline int otp_redis_set_timeout(redisContext *context, long timeout_ms) {
    struct timeval timeout = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisSetTimeout(context, timeout);
}

// The context's error code: 0 when the connection is usable.
static inline int otp_redis_error(const redisContext *context) { return context->err; }

// The context's error text.
static inline const char *otp_redis_error_text(const redisContext *context) { return context->errstr; }

// Sends one command given as binary-safe arguments and waits for its reply (NULL on I/O error).
static inline redisReply *otp_redis_command(redisContext *context, int count, const char **arguments,
                                            const size_t *lengths) {
    return (redisReply *)redisCommandArgv(context, count, arguments, lengths);
}

// Appends one command already in the protocol's form (REDIS_ERR when out of memory).
static inline int otp_redis_append_formatted(redisContext *context, const char *command, size_t length) {
    return redisAppendFormattedCommand(context, command, length);
}

// Sends what is buffered when needed and reads the next reply (NULL on I/O error).
static inline redisReply *otp_redis_next_reply(redisContext *context) {
    void *reply = NULL;
    if (redisGetReply(context, &reply) != REDIS_OK) return NULL;
    return (redisReply *)reply;
}

#endif
