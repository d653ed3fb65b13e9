// The parts of OpenSSL's libcrypto that OTPServer uses, behind typed inline wrappers.
#ifndef OTPKIT_CCRYPTO_SHIM_H
#define OTPKIT_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <stddef.h>

// HMAC-SHA256 of `data` under `key` into `out` (32 bytes). Returns 1 on success, 0 on failure.
static inline int otp_hmac_sha256(const unsigned char *key, size_t key_length, const unsigned char *data,
                                  size_t data_length, unsigned char *out) {
    static const unsigned char empty = 0;
    size_t out_length = 0;
    unsigned char *result = EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key_length ? key : &empty, key_length,
                                      data_length ? data : &empty, data_length, out, 32, &out_length);
    return (result != NULL && out_length == 32) ? 1 : 0;
}

#endif
