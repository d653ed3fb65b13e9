// libqrencode (Debian's libqrencode-dev): QR codes for authenticator enrolment.
#ifndef OTPKIT_CQRENCODE_SHIM_H
#define OTPKIT_CQRENCODE_SHIM_H

#include <qrencode.h>

#endif
