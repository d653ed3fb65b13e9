// The parts of OpenSSL's libcrypto that OTPEngine and OTPTokens use, behind typed inline wrappers.
#ifndef OTPKIT_CCRYPTO_SHIM_H
#define OTPKIT_CCRYPTO_SHIM_H

// SHA256_Init and friends are deprecated in OpenSSL 3 but neither removed nor slower; the
// prepared HMAC below needs their plain-struct state to copy per call without allocating.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>

// An HMAC-SHA256 key prepared once (RFC 2104): the SHA-256 states after the inner and the outer
// padded key. Computing a code then costs two hash finishes, no allocation and no lookup.
typedef struct {
    SHA256_CTX inner;
    SHA256_CTX outer;
} otp_hmac_sha256_key;

static inline void otp_hmac_sha256_prepare(otp_hmac_sha256_key *prepared, const unsigned char *key,
                                           size_t key_length) {
    unsigned char block[64];
    unsigned char pad[64];
    memset(block, 0, sizeof block);
    if (key_length > sizeof block) {
        SHA256(key, key_length, block);
    } else if (key_length > 0) {
        memcpy(block, key, key_length);
    }
    for (size_t i = 0; i < sizeof pad; i++) pad[i] = block[i] ^ 0x36;
    SHA256_Init(&prepared->inner);
    SHA256_Update(&prepared->inner, pad, sizeof pad);
    for (size_t i = 0; i < sizeof pad; i++) pad[i] = block[i] ^ 0x5c;
    SHA256_Init(&prepared->outer);
    SHA256_Update(&prepared->outer, pad, sizeof pad);
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(pad, sizeof pad);
}

// HMAC-SHA256 of `data` under a prepared key into `out` (32 bytes).
static inline void otp_hmac_sha256_with(const otp_hmac_sha256_key *prepared, const unsigned char *data,
                                        size_t data_length, unsigned char *out) {
    SHA256_CTX context = prepared->inner;
    unsigned char inner[32];
    if (data_length > 0) SHA256_Update(&context, data, data_length);
    SHA256_Final(inner, &context);
    context = prepared->outer;
    SHA256_Update(&context, inner, sizeof inner);
    SHA256_Final(out, &context);
    OPENSSL_cleanse(&context, sizeof context);
}

// HMAC-SHA256 of `data` under `key` into `out` (32 bytes). Returns 1 on success, 0 on failure.
static inline int otp_hmac_sha256(const unsigned char *key, size_t key_length, const unsigned char *data,
                                  size_t data_length, unsigned char *out) {
    static const unsigned char empty = 0;
    size_t out_length = 0;
    unsigned char *result = EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key_length ? key : &empty, key_length,
                                      data_length ? data : &empty, data_length, out, 32, &out_length);
    return (result != NULL && out_length == 32) ? 1 : 0;
}

// SHA-256 of `data` into `out` (32 bytes). Returns 1 on success, 0 on failure.
static inline int otp_sha256(const unsigned char *data, size_t data_length, unsigned char *out) {
    static const unsigned char empty = 0;
    unsigned int out_length = 0;
    int status = EVP_Digest(data_length ? data : &empty, data_length, out, &out_length, EVP_sha256(), NULL);
    return (status == 1 && out_length == 32) ? 1 : 0;
}

// The Ed25519 public key (32 bytes, into `public_key`) of the private key with the 32-byte `seed`
// (RFC 8032's private key). Returns 1 on success, 0 on failure.
static inline int otp_ed25519_public_key(const unsigned char *seed, unsigned char *public_key) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    size_t length = 32;
    int ok = key != NULL && EVP_PKEY_get_raw_public_key(key, public_key, &length) == 1 && length == 32;
    EVP_PKEY_free(key);
    return ok ? 1 : 0;
}

// The Ed25519 signature (64 bytes, into `signature`) of `message` under the private key with the
// 32-byte `seed`. Returns 1 on success, 0 on failure.
static inline int otp_ed25519_sign(const unsigned char *seed, const unsigned char *message, size_t message_length,
                                   unsigned char *signature) {
    static const unsigned char empty = 0;
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    size_t length = 64;
    int ok = key != NULL && context != NULL && EVP_DigestSignInit(context, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestSign(context, signature, &length, message_length ? message : &empty, message_length) == 1 &&
             length == 64;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return ok ? 1 : 0;
}

// Whether `signature` (`signature_length` bytes; only 64 can verify) is a valid Ed25519 signature of
// `message` under the 32-byte `public_key`. Returns 1 when it is, 0 when it is not or on failure.
static inline int otp_ed25519_verify(const unsigned char *public_key, const unsigned char *message,
                                     size_t message_length, const unsigned char *signature, size_t signature_length) {
    static const unsigned char empty = 0;
    if (signature_length != 64) {
        return 0;
    }
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = key != NULL && context != NULL && EVP_DigestVerifyInit(context, NULL, NULL, NULL, key) == 1 &&
             EVP_DigestVerify(context, signature, 64, message_length ? message : &empty, message_length) == 1;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return ok ? 1 : 0;
}

// HMAC of `data` under `key` with the digest named `digest` ("SHA1", "SHA256" or "SHA512") into `out`,
// which has room for `out_capacity` bytes; the length written goes to `out_length`. Returns 1 on success.
static inline int otp_hmac(const char *digest, const unsigned char *key, size_t key_length,
                           const unsigned char *data, size_t data_length, unsigned char *out, size_t out_capacity,
                           size_t *out_length) {
    static const unsigned char empty = 0;
    unsigned char *result = EVP_Q_mac(NULL, "HMAC", NULL, digest, NULL, key_length ? key : &empty, key_length,
                                      data_length ? data : &empty, data_length, out, out_capacity, out_length);
    return result != NULL ? 1 : 0;
}

// AES-256-GCM: seals `plain` under the 32-byte `key` and 12-byte `nonce`, with `aad` authenticated too,
// into `cipher` (the same length as `plain`) and the 16-byte `tag`. Returns 1 on success.
static inline int otp_aes256gcm_seal(const unsigned char *key, const unsigned char *nonce, const unsigned char *aad,
                                     size_t aad_length, const unsigned char *plain, size_t plain_length,
                                     unsigned char *cipher, unsigned char *tag) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int length = 0;
    int ok = context != NULL && EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_EncryptInit_ex(context, NULL, NULL, key, nonce) == 1 &&
             (aad_length == 0 || EVP_EncryptUpdate(context, NULL, &length, aad, (int)aad_length) == 1) &&
             (plain_length == 0 || EVP_EncryptUpdate(context, cipher, &length, plain, (int)plain_length) == 1) &&
             EVP_EncryptFinal_ex(context, cipher + (plain_length ? length : 0), &length) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok ? 1 : 0;
}

// AES-256-GCM: opens `cipher` sealed by otp_aes256gcm_seal into `plain`; returns 1 only when the tag
// authenticates the cipher text and `aad` under `key` and `nonce`, else 0 (and `plain` must be discarded).
static inline int otp_aes256gcm_open(const unsigned char *key, const unsigned char *nonce, const unsigned char *aad,
                                     size_t aad_length, const unsigned char *cipher, size_t cipher_length,
                                     const unsigned char *tag, unsigned char *plain) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int length = 0;
    unsigned char tag_copy[16];
    for (int index = 0; index < 16; index++) tag_copy[index] = tag[index];
    int ok = context != NULL && EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_DecryptInit_ex(context, NULL, NULL, key, nonce) == 1 &&
             (aad_length == 0 || EVP_DecryptUpdate(context, NULL, &length, aad, (int)aad_length) == 1) &&
             (cipher_length == 0 || EVP_DecryptUpdate(context, plain, &length, cipher, (int)cipher_length) == 1) &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, tag_copy) == 1 &&
             EVP_DecryptFinal_ex(context, plain + (cipher_length ? length : 0), &length) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok ? 1 : 0;
}

// Fills `length` bytes from the kernel's random source (what SystemRandomNumberGenerator reads,
// 8 bytes a call); returns 1 when every byte was filled. Up to 256 bytes are never cut short.
static inline int otp_system_random(void *bytes, size_t length) {
    return getrandom(bytes, length, 0) == (ssize_t)length ? 1 : 0;
}

#endif
