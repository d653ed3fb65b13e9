// See NumberPlan.h. Each step below names the PhoneNumberUtil function whose answer it gives.
#include "NumberPlan.h"

#include <phonenumbers/phonemetadata.pb.h>
#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

// The compiled-in metadata, a serialized PhoneMetadataCollection. The library exports these two
// functions (its generated metadata.h, which Debian does not install, declares them).
namespace i18n {
namespace phonenumbers {
int metadata_size();
const void *metadata_get();
}  // namespace phonenumbers
}  // namespace i18n

namespace otpkit {
namespace {

using i18n::phonenumbers::PhoneMetadata;
using i18n::phonenumbers::PhoneMetadataCollection;
using i18n::phonenumbers::PhoneNumber;
using i18n::phonenumbers::PhoneNumberDesc;
using i18n::phonenumbers::PhoneNumberUtil;
using Type = PhoneNumberUtil::PhoneNumberType;

const PhoneNumberUtil &util() { return *PhoneNumberUtil::GetInstance(); }

/// The metadata by region, and the non-geographic entities' by calling code; read once.
class Tables {
 public:
  Tables() {
    if (!collection_.ParseFromArray(
            i18n::phonenumbers::metadata_get(), i18n::phonenumbers::metadata_size())) {
      return;
    }
    for (const PhoneMetadata &metadata : collection_.metadata()) {
      if (metadata.id() == kNonGeographic) {
        non_geographic_[metadata.country_code()] = &metadata;
      } else {
        regions_[metadata.id()] = &metadata;
      }
    }
    // The regions of each calling code, in PhoneNumberUtil's order (its main region first), asked
    // once here rather than copied into a new list at every call.
    for (int code = 1; code <= 999; ++code) {
      std::list<std::string> regions;
      util().GetRegionCodesForCountryCallingCode(code, &regions);
      if (!regions.empty()) regions_for_code_[code] = std::vector<std::string>(regions.begin(), regions.end());
    }
    loaded_ = !regions_.empty() && !regions_for_code_.empty();
  }

  bool loaded() const { return loaded_; }

  /// As GetMetadataForRegionOrCallingCode.
  const PhoneMetadata *metadata(int calling_code, const std::string &region) const {
    if (region == kNonGeographic) {
      auto found = non_geographic_.find(calling_code);
      return found == non_geographic_.end() ? nullptr : found->second;
    }
    auto found = regions_.find(region);
    return found == regions_.end() ? nullptr : found->second;
  }

  /// As GetRegionCodesForCountryCallingCode: empty for a code that is no calling code.
  const std::vector<std::string> &regions(int calling_code) const {
    auto found = regions_for_code_.find(calling_code);
    return found == regions_for_code_.end() ? none_ : found->second;
  }

  static constexpr const char *kNonGeographic = "001";

 private:
  PhoneMetadataCollection collection_;
  std::unordered_map<std::string, const PhoneMetadata *> regions_;
  std::unordered_map<int, const PhoneMetadata *> non_geographic_;
  std::unordered_map<int, std::vector<std::string>> regions_for_code_;
  const std::vector<std::string> none_;
  bool loaded_ = false;
};

const Tables &tables() {
  static const Tables shared;
  return shared;
}

/// How a rewrite of a whole match went.
enum class Rewrite { no_match, rewritten, failed };

/// This thread's ICU matchers, one per pattern, compiled on first use (with no flags, as
/// libphonenumber's ICU adapter compiles them) and reset for each text.
class Matchers {
 public:
  /// The whole text matches (RegExp::FullMatch).
  bool full_match(const std::string &pattern, const icu::UnicodeString &text) {
    icu::RegexMatcher *matcher = prepared(pattern, text);
    UErrorCode status = U_ZERO_ERROR;
    return matcher != nullptr && matcher->matches(status) && U_SUCCESS(status);
  }

  /// The pattern matches at the text's start (RegExp::Consume without the consuming).
  bool prefix_match(const std::string &pattern, const icu::UnicodeString &text) {
    icu::RegexMatcher *matcher = prepared(pattern, text);
    UErrorCode status = U_ZERO_ERROR;
    return matcher != nullptr && matcher->lookingAt(status) && U_SUCCESS(status);
  }

  /// When the whole text matches, the text rewritten by `format` ($1, $2, … for the groups) as
  /// RegExp::GlobalReplace rewrites it; `no_match` when the pattern does not match the whole text.
  ///
  /// GlobalReplace replaces each match `find` gives. When the first is the whole text and no other
  /// follows, that is `format` with this match's groups put in, built here from the groups' text;
  /// any other case, and a format with more than `$` and one digit in it, goes through ICU's
  /// replaceAll.
  Rewrite rewrite_full_match(const std::string &pattern, const std::string &format, const icu::UnicodeString &text,
                             std::string *out) {
    icu::RegexMatcher *matcher = prepared(pattern, text);
    if (matcher == nullptr) return Rewrite::no_match;
    // A first match that is the whole text shows that the whole text matches; else `matches`
    // says, since a pattern may match the whole text along a path `find` does not take first.
    UErrorCode status = U_ZERO_ERROR;
    const bool whole = matcher->find(status) && U_SUCCESS(status) && matcher->start(status) == 0 &&
                       matcher->end(status) == text.length() && U_SUCCESS(status);
    if (whole && substitute(*matcher, format, text, out) && !matcher->find(status) && U_SUCCESS(status)) {
      return Rewrite::rewritten;
    }
    status = U_ZERO_ERROR;
    if (!whole && (!matcher->matches(status) || U_FAILURE(status))) return Rewrite::no_match;
    matcher->reset();
    status = U_ZERO_ERROR;
    auto known = replacements_.find(format);
    if (known == replacements_.end()) {
      known = replacements_.emplace(format, icu::UnicodeString::fromUTF8(format)).first;
    }
    const icu::UnicodeString replaced = matcher->replaceAll(known->second, status);
    if (U_FAILURE(status)) return Rewrite::failed;
    out->clear();
    replaced.toUTF8String(*out);
    return Rewrite::rewritten;
  }

  /// The pattern matches at least one character at the text's start. A pattern that does not
  /// compile answers true, so that a caller that would skip work on false does not.
  bool consumes(const std::string &pattern, const icu::UnicodeString &text) {
    icu::RegexMatcher *matcher = prepared(pattern, text);
    if (matcher == nullptr) return true;
    UErrorCode status = U_ZERO_ERROR;
    if (!matcher->lookingAt(status) || U_FAILURE(status)) return false;
    return matcher->end(status) > 0 || U_FAILURE(status);
  }

 private:
  /// `format` with each `$1` … `$9` replaced by that group of the match `matcher` holds, for a
  /// format whose only special characters are `$` each followed by one digit (no `\\`, no `$` before
  /// a second digit, whose reading ICU settles by the group count), and groups of ASCII text. False
  /// for any other format or group.
  static bool substitute(const icu::RegexMatcher &matcher, const std::string &format,
                         const icu::UnicodeString &text, std::string *out) {
    out->clear();
    for (size_t at = 0; at < format.size(); ++at) {
      const char c = format[at];
      if (c == '\\') return false;
      if (c != '$') {
        out->push_back(c);
        continue;
      }
      if (at + 1 >= format.size() || format[at + 1] < '0' || format[at + 1] > '9') return false;
      if (at + 2 < format.size() && format[at + 2] >= '0' && format[at + 2] <= '9') return false;
      const int group = format[++at] - '0';
      if (group > matcher.groupCount()) return false;
      UErrorCode status = U_ZERO_ERROR;
      const int32_t start = matcher.start(group, status);
      const int32_t end = matcher.end(group, status);
      if (U_FAILURE(status)) return false;
      // A group that took no part in the match puts in nothing, as replaceAll does.
      for (int32_t index = start; index >= 0 && index < end; ++index) {
        const char16_t unit = text.charAt(index);
        if (unit > 0x7F) return false;
        out->push_back(static_cast<char>(unit));
      }
    }
    return true;
  }

  icu::RegexMatcher *prepared(const std::string &pattern, const icu::UnicodeString &text) {
    auto found = matchers_.find(pattern);
    if (found == matchers_.end()) {
      UErrorCode status = U_ZERO_ERROR;
      auto matcher = std::make_unique<icu::RegexMatcher>(icu::UnicodeString::fromUTF8(pattern), 0, status);
      if (U_FAILURE(status)) matcher.reset();
      found = matchers_.emplace(pattern, std::move(matcher)).first;
    }
    icu::RegexMatcher *matcher = found->second.get();
    if (matcher != nullptr) matcher->reset(text);
    return matcher;
  }

  std::unordered_map<std::string, std::unique_ptr<icu::RegexMatcher>> matchers_;
  std::unordered_map<std::string, icu::UnicodeString> replacements_;
};

Matchers &matchers() {
  thread_local Matchers mine;
  return mine;
}

/// Digits as ICU text (they are invariant characters, so no UTF-8 decoding is needed).
icu::UnicodeString digits_text(const std::string &digits) {
  return icu::UnicodeString(digits.data(), static_cast<int32_t>(digits.size()), US_INV);
}

/// As PhoneNumberUtil::IsNumberMatchingDesc: the possible lengths first, then the pattern.
bool matches_desc(const std::string &nsn, const icu::UnicodeString &text, const PhoneNumberDesc &desc) {
  if (desc.possible_length_size() > 0 &&
      std::find(desc.possible_length().begin(), desc.possible_length().end(), static_cast<int>(nsn.size())) ==
          desc.possible_length().end()) {
    return false;
  }
  // An empty pattern matches nothing (RegexBasedMatcher::MatchNationalNumber).
  if (desc.national_number_pattern().empty()) return false;
  return matchers().full_match(desc.national_number_pattern(), text);
}

/// As PhoneNumberUtil::GetNumberTypeHelper, in its order.
Type type_in(const std::string &nsn, const icu::UnicodeString &text, const PhoneMetadata &metadata) {
  if (!matches_desc(nsn, text, metadata.general_desc())) return PhoneNumberUtil::UNKNOWN;
  if (matches_desc(nsn, text, metadata.premium_rate())) return PhoneNumberUtil::PREMIUM_RATE;
  if (matches_desc(nsn, text, metadata.toll_free())) return PhoneNumberUtil::TOLL_FREE;
  if (matches_desc(nsn, text, metadata.shared_cost())) return PhoneNumberUtil::SHARED_COST;
  if (matches_desc(nsn, text, metadata.voip())) return PhoneNumberUtil::VOIP;
  if (matches_desc(nsn, text, metadata.personal_number())) return PhoneNumberUtil::PERSONAL_NUMBER;
  if (matches_desc(nsn, text, metadata.pager())) return PhoneNumberUtil::PAGER;
  if (matches_desc(nsn, text, metadata.uan())) return PhoneNumberUtil::UAN;
  if (matches_desc(nsn, text, metadata.voicemail())) return PhoneNumberUtil::VOICEMAIL;
  const bool same_pattern = metadata.same_mobile_and_fixed_line_pattern();
  if (matches_desc(nsn, text, metadata.fixed_line())) {
    if (same_pattern || matches_desc(nsn, text, metadata.mobile())) return PhoneNumberUtil::FIXED_LINE_OR_MOBILE;
    return PhoneNumberUtil::FIXED_LINE;
  }
  if (!same_pattern && matches_desc(nsn, text, metadata.mobile())) return PhoneNumberUtil::MOBILE;
  return PhoneNumberUtil::UNKNOWN;
}

/// As PhoneNumberUtil::GetRegionCodeForNumber (and GetRegionCodeForNumberFromRegionList). When
/// the region was chosen by the number's type there, `type` is set to it, so it is not judged twice.
std::string region_of(int calling_code, const std::string &nsn, const icu::UnicodeString &text, Type *type,
                      bool *typed) {
  *typed = false;
  const std::vector<std::string> &regions = tables().regions(calling_code);
  if (regions.empty()) return "ZZ";
  if (regions.size() == 1) return regions.front();
  for (const std::string &region : regions) {
    const PhoneMetadata *metadata = tables().metadata(calling_code, region);
    if (metadata == nullptr) continue;
    if (metadata->has_leading_digits()) {
      if (matchers().prefix_match(metadata->leading_digits(), text)) return region;
    } else {
      const Type found = type_in(nsn, text, *metadata);
      if (found != PhoneNumberUtil::UNKNOWN) {
        *type = found;
        *typed = true;
        return region;
      }
    }
  }
  return "ZZ";
}

/// As PhoneNumberUtil::ChooseFormattingPatternForNumber and FormatNsnUsingPattern, for the
/// INTERNATIONAL form: the first format whose last leading-digits pattern matches the number's
/// start and whose pattern matches it whole; the number unformatted when none does.
std::string format_nsn_international(const std::string &nsn, const icu::UnicodeString &text,
                                     const PhoneMetadata &metadata) {
  const auto &formats =
      metadata.intl_number_format_size() == 0 ? metadata.number_format() : metadata.intl_number_format();
  for (const auto &format : formats) {
    const int leading = format.leading_digits_pattern_size();
    if (leading > 0 && !matchers().prefix_match(format.leading_digits_pattern(leading - 1), text)) continue;
    std::string formatted;
    switch (matchers().rewrite_full_match(format.pattern(), format.format(), text, &formatted)) {
      case Rewrite::no_match:
        continue;
      case Rewrite::rewritten:
        return formatted;
      case Rewrite::failed:
        return nsn;
    }
  }
  return nsn;
}

}  // namespace

bool number_plan_available() { return tables().loaded(); }

bool number_plan_parse_e164(const std::string &text, PhoneNumber *number) {
  // Parse's bounds: a national number of 2 to 17 digits after a calling code of 1 to 3. Texts near
  // those bounds, and every other form, are left to Parse.
  if (!tables().loaded() || text.size() < 5 || text.size() > 21 || text[0] != '+' || text[1] == '0') {
    return false;
  }
  if (!std::all_of(text.begin() + 1, text.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  // As ExtractCountryCode: the first 1, 2 or 3 digits that are a known calling code.
  int calling_code = 0;
  size_t code_length = 0;
  int candidate = 0;
  for (size_t length = 1; length <= 3; ++length) {
    candidate = candidate * 10 + (text[length] - '0');
    if (!tables().regions(candidate).empty()) {
      calling_code = candidate;
      code_length = length;
      break;
    }
  }
  if (calling_code == 0) return false;
  // As GetRegionCodeForCountryCode: the code's main region.
  const std::string &main_region = tables().regions(calling_code).front();
  const std::string nsn = text.substr(1 + code_length);
  if (nsn.size() < 3 || nsn.size() > 17) return false;
  // Parse strips a national prefix (and carrier code) from a number whose start matches the
  // region's national_prefix_for_parsing; such numbers are left to Parse.
  const PhoneMetadata *metadata = tables().metadata(calling_code, main_region);
  if (metadata == nullptr) return false;
  if (!metadata->national_prefix_for_parsing().empty() &&
      matchers().consumes(metadata->national_prefix_for_parsing(), digits_text(nsn))) {
    return false;
  }
  number->Clear();
  number->set_country_code(calling_code);
  // As SetItalianLeadingZerosForPhoneNumber.
  if (nsn.size() > 1 && nsn[0] == '0') {
    number->set_italian_leading_zero(true);
    int zeros = 1;
    while (zeros < static_cast<int>(nsn.size()) - 1 && nsn[zeros] == '0') ++zeros;
    if (zeros != 1) number->set_number_of_leading_zeros(zeros);
  }
  number->set_national_number(std::stoull(nsn));
  return true;
}

bool number_plan_describe(const PhoneNumber &number, Description *out) {
  // Format answers a number without a national number by its raw input; such numbers are left to
  // PhoneNumberUtil.
  if (!tables().loaded() || (number.national_number() == 0 && !number.raw_input().empty())) return false;
  const int calling_code = number.country_code();
  std::string nsn;
  util().GetNationalSignificantNumber(number, &nsn);
  const icu::UnicodeString text = digits_text(nsn);
  bool typed = false;
  out->region = region_of(calling_code, nsn, text, &out->type, &typed);
  if (!typed) {
    const PhoneMetadata *metadata = tables().metadata(calling_code, out->region);
    out->type = metadata == nullptr ? PhoneNumberUtil::UNKNOWN : type_in(nsn, text, *metadata);
  }
  // As Format's E164: the calling code and the national significant number.
  const std::string code = std::to_string(calling_code);
  out->e164 = "+" + code + nsn;
  // As Format's INTERNATIONAL, the extension left out: a calling code with no region is the
  // national number alone, else the main region's international format.
  const std::vector<std::string> &regions = tables().regions(calling_code);
  if (regions.empty()) {
    out->international = nsn;
    return true;
  }
  const PhoneMetadata *main = tables().metadata(calling_code, regions.front());
  if (main == nullptr) return false;
  out->international = "+" + code + " " + format_nsn_international(nsn, text, *main);
  return true;
}

}  // namespace otpkit
