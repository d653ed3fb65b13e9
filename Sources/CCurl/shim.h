// Typed wrappers over libcurl's variadic entry points, plus C-side body callbacks.
#ifndef OTP_CCURL_SHIM_H
#define OTP_CCURL_SHIM_H

#include <curl/curl.h>
#include <stddef.h>
#include <string.h>

/// Sets an option that takes a `long`.
static inline CURLcode otp_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

/// Sets an option that takes a C string (libcurl copies strings it is given).
static inline CURLcode otp_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

/// Sets an option that takes a pointer the caller keeps alive through `curl_easy_perform`.
static inline CURLcode otp_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

/// Reads an information item that is a `long`, such as the response code.
static inline CURLcode otp_curl_get_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

/// Bytes to upload, read from the front; the caller keeps `data` alive through the transfer.
struct otp_curl_upload {
    const char *data;
    size_t length;
    size_t offset;
};

static size_t otp_curl_read_upload(char *buffer, size_t size, size_t count, void *context) {
    struct otp_curl_upload *upload = (struct otp_curl_upload *)context;
    size_t room = size * count;
    size_t left = upload->length - upload->offset;
    size_t n = left < room ? left : room;
    memcpy(buffer, upload->data + upload->offset, n);
    upload->offset += n;
    return n;
}

/// Makes the transfer upload `upload`'s bytes (SMTP DATA).
static inline CURLcode otp_curl_set_upload(CURL *curl, struct otp_curl_upload *upload) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_READFUNCTION, otp_curl_read_upload);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(curl, CURLOPT_READDATA, (void *)upload);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
}

/// The first bytes of a response body; the rest is dropped.
struct otp_curl_sink {
    char data[1024];
    size_t length;
};

static size_t otp_curl_write_sink(char *buffer, size_t size, size_t count, void *context) {
    struct otp_curl_sink *sink = (struct otp_curl_sink *)context;
    size_t total = size * count;
    size_t room = sizeof sink->data - sink->length;
    size_t n = total < room ? total : room;
    memcpy(sink->data + sink->length, buffer, n);
    sink->length += n;
    return total;
}

/// Keeps the first kilobyte of the response body in `sink` and drops the rest.
static inline CURLcode otp_curl_set_sink(CURL *curl, struct otp_curl_sink *sink) {
    CURLcode code = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, otp_curl_write_sink);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(curl, CURLOPT_WRITEDATA, (void *)sink);
}

#endif
