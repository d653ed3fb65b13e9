// libpq for OTPPostgres: the client library of PostgreSQL, as Debian's libpq-dev installs it.
#ifndef OTPKIT_CLIBPQ_SHIM_H
#define OTPKIT_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
