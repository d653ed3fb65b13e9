// The HTTP ceiling of this machine: libmicrohttpd answering every request with a fixed 200,
// set up like OTPHTTP's server (internal polling thread, epoll, a pool of 2) and reading POST
// bodies to the end. It prints its port, then serves until stdin closes or SIGTERM.
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\"}";

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **request) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    static int marker;
    if (*request == NULL) {
        *request = &marker;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof body - 1, (void *)body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return result;
}

int main(int argc, char **argv) {
    unsigned int threads = argc > 1 ? (unsigned int)atoi(argv[1]) : 2;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    struct MHD_Daemon *daemon;
    if (threads > 1) {
        daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL, MHD_OPTION_THREAD_POOL_SIZE,
                                  threads, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    } else {
        daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
                                  10u, MHD_OPTION_END);
    }
    if (daemon == NULL) {
        fprintf(stderr, "bare: cannot start\n");
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    printf("%u\n", info ? info->port : 0);
    fflush(stdout);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int received = 0;
    sigwait(&set, &received);
    MHD_stop_daemon(daemon);
    return 0;
}
