// Region, type and E.164 parsing read from libphonenumber's own metadata, with matchers kept per
// thread: the answers PhoneNumberUtil gives, without compiling an ICU matcher for every pattern of
// every call.
//
// PhoneNumberUtil's Parse, GetRegionCodeForNumber and GetNumberType create and free an ICU
// RegexMatcher for each pattern they try (a dozen or more per number), which made a number's
// reading cost several times the rest of a start. NumberPlan runs the same patterns from the same
// metadata through the same ICU engine and in libphonenumber's order, but each thread compiles a
// pattern once and resets its matcher for the next number. The unit tests hold it to
// PhoneNumberUtil's answers on every region's example numbers and on variants of them.
#ifndef OTPKIT_CPHONENUMBERS_NUMBERPLAN_H
#define OTPKIT_CPHONENUMBERS_NUMBERPLAN_H

#include <phonenumbers/phonenumber.pb.h>
#include <phonenumbers/phonenumberutil.h>

#include <string>

namespace otpkit {

/// Whether libphonenumber's metadata was read; when it was not, every call below declines and
/// callers use PhoneNumberUtil alone.
bool number_plan_available();

/// `text` as PhoneNumberUtil::Parse reads it, for the strict E.164 form only ("+" and digits, a
/// known calling code, no national prefix to strip). Returns false, leaving `number` untouched,
/// for any other text: the caller then asks Parse.
bool number_plan_parse_e164(const std::string &text, i18n::phonenumbers::PhoneNumber *number);

/// What a number is, each part as PhoneNumberUtil answers it.
struct Description {
  /// As GetRegionCodeForNumber: "ZZ" when unknown, "001" for a non-geographic number.
  std::string region;
  /// As GetNumberType.
  i18n::phonenumbers::PhoneNumberUtil::PhoneNumberType type = i18n::phonenumbers::PhoneNumberUtil::UNKNOWN;
  /// As Format's E164 form.
  std::string e164;
  /// As Format's INTERNATIONAL form, the extension left out.
  std::string international;
};

/// The number's region, type, E.164 and international forms, from one reading of its national
/// significant number. Returns false when the metadata is not available, or for a number Format
/// answers by its raw input.
bool number_plan_describe(const i18n::phonenumbers::PhoneNumber &number, Description *out);

}  // namespace otpkit

#endif
