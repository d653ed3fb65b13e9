// A C interface to libphonenumber's PhoneNumberUtil, for Swift.
//
// Every function is safe to call from any thread: libphonenumber's PhoneNumberUtil is a
// process-wide instance whose lookups are const. Strings come back in buffers the caller owns,
// always NUL-terminated when their capacity is at least 1.
#ifndef OTPKIT_CPHONENUMBERS_H
#define OTPKIT_CPHONENUMBERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The kinds of number libphonenumber tells apart, in its own order.
typedef enum {
  otp_phone_fixed_line = 0,
  otp_phone_mobile = 1,
  otp_phone_fixed_line_or_mobile = 2,
  otp_phone_toll_free = 3,
  otp_phone_premium_rate = 4,
  otp_phone_shared_cost = 5,
  otp_phone_voip = 6,
  otp_phone_personal_number = 7,
  otp_phone_pager = 8,
  otp_phone_uan = 9,
  otp_phone_voicemail = 10,
  otp_phone_unknown = 11
} otp_phone_type;

/// What one number is, as libphonenumber reads it.
typedef struct {
  /// 1 when the number is a valid number of its region, else 0.
  int is_valid;
  /// 1 when the input carried an extension (such as "x12"), else 0.
  int has_extension;
  /// The number's type (otp_phone_unknown for a number that is not valid).
  otp_phone_type type;
  /// The E.164 form, such as "+12015550123".
  char e164[32];
  /// The ISO 3166 alpha-2 region, "001" for a non-geographic number, "ZZ" when unknown.
  char region[8];
  /// The international form with libphonenumber's grouping, such as "+1 201-555-0123".
  char international[64];
} otp_phone_number;

/// Parses `text` (international with a leading "+", or national with `region_hint`, an ISO 3166
/// alpha-2 code or NULL). Returns 1 and fills `out` when the text reads as a phone number at all,
/// 0 when it does not (then `out` is left zeroed).
int otp_phone_parse(const char *text, const char *region_hint, otp_phone_number *out);

/// otp_phone_parse through PhoneNumberUtil's own Parse, GetRegionCodeForNumber and GetNumberType
/// only: the reference the faster reading of otp_phone_parse is tested against.
int otp_phone_parse_reference(const char *text, const char *region_hint, otp_phone_number *out);

/// 1 when otp_phone_parse reads numbers through libphonenumber's metadata with reused matchers,
/// 0 when that metadata could not be read and every call goes through PhoneNumberUtil alone.
int otp_phone_number_plan_available(void);

/// The example number of `type` in `region` from libphonenumber's metadata. Returns 1 and fills
/// `out`, or 0 when the metadata holds none.
int otp_phone_example(const char *region, otp_phone_type type, otp_phone_number *out);

/// The regions libphonenumber has metadata for, as "AD,AE,…" (sorted, comma-separated), written
/// into `buffer`. Returns the length the whole list needs, without the NUL; the list is cut when
/// `capacity` is too small.
size_t otp_phone_supported_regions(char *buffer, size_t capacity);

/// The country calling code of `region` (1 for "US"), or 0 for a region libphonenumber does not know.
int otp_phone_calling_code(const char *region);

#ifdef __cplusplus
}
#endif

#endif
