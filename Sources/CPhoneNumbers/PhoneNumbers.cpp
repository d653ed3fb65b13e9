// libphonenumber behind the C interface of CPhoneNumbers.h.
#include "CPhoneNumbers.h"

#include "NumberPlan.h"

#include <phonenumbers/phonenumber.pb.h>
#include <phonenumbers/phonenumberutil.h>

#include <cstring>
#include <set>
#include <string>

using i18n::phonenumbers::PhoneNumber;
using i18n::phonenumbers::PhoneNumberUtil;

namespace {

const PhoneNumberUtil &util() { return *PhoneNumberUtil::GetInstance(); }

void copy(const std::string &text, char *buffer, size_t capacity) {
  if (capacity == 0) return;
  size_t count = text.size() < capacity - 1 ? text.size() : capacity - 1;
  std::memcpy(buffer, text.data(), count);
  buffer[count] = '\0';
}

void describe(const PhoneNumber &number, bool reference, otp_phone_number *out) {
  std::memset(out, 0, sizeof(*out));
  // A number is valid exactly when it has a type in its region's metadata (IsValidNumber is that
  // test), so the region and the type are each found once.
  otpkit::Description found;
  if (reference || !otpkit::number_plan_describe(number, &found)) {
    const PhoneNumberUtil &phone = util();
    found.type = phone.GetNumberType(number);
    phone.GetRegionCodeForNumber(number, &found.region);
    phone.Format(number, PhoneNumberUtil::E164, &found.e164);
    PhoneNumber plain(number);
    plain.clear_extension();
    phone.Format(plain, PhoneNumberUtil::INTERNATIONAL, &found.international);
  }
  out->is_valid = found.type != PhoneNumberUtil::UNKNOWN ? 1 : 0;
  out->has_extension = number.has_extension() && !number.extension().empty() ? 1 : 0;
  out->type = out->is_valid ? static_cast<otp_phone_type>(found.type) : otp_phone_unknown;
  copy(found.region, out->region, sizeof(out->region));
  copy(found.e164, out->e164, sizeof(out->e164));
  copy(found.international, out->international, sizeof(out->international));
}

int parse(const char *text, const char *region_hint, bool reference, otp_phone_number *out) {
  std::memset(out, 0, sizeof(*out));
  if (text == nullptr) return 0;
  PhoneNumber number;
  const std::string input(text);
  if (reference || !otpkit::number_plan_parse_e164(input, &number)) {
    const std::string hint = region_hint == nullptr ? std::string("ZZ") : std::string(region_hint);
    if (util().Parse(input, hint, &number) != PhoneNumberUtil::NO_PARSING_ERROR) return 0;
  }
  describe(number, reference, out);
  return 1;
}

}  // namespace

extern "C" int otp_phone_parse(const char *text, const char *region_hint, otp_phone_number *out) {
  return parse(text, region_hint, false, out);
}

extern "C" int otp_phone_parse_reference(const char *text, const char *region_hint, otp_phone_number *out) {
  return parse(text, region_hint, true, out);
}

extern "C" int otp_phone_number_plan_available(void) { return otpkit::number_plan_available() ? 1 : 0; }

extern "C" int otp_phone_example(const char *region, otp_phone_type type, otp_phone_number *out) {
  std::memset(out, 0, sizeof(*out));
  if (region == nullptr || type < otp_phone_fixed_line || type >= otp_phone_unknown) return 0;
  PhoneNumber number;
  if (!util().GetExampleNumberForType(
          std::string(region), static_cast<PhoneNumberUtil::PhoneNumberType>(type), &number)) {
    return 0;
  }
  describe(number, false, out);
  return 1;
}

extern "C" size_t otp_phone_supported_regions(char *buffer, size_t capacity) {
  std::set<std::string> regions;
  util().GetSupportedRegions(&regions);
  std::string list;
  for (const std::string &region : regions) {
    if (!list.empty()) list += ',';
    list += region;
  }
  copy(list, buffer, capacity);
  return list.size();
}

extern "C" int otp_phone_calling_code(const char *region) {
  if (region == nullptr) return 0;
  return util().GetCountryCodeForRegion(std::string(region));
}
