// SQLite for OTPSQLite, with typed wrappers for what does not import into Swift.
#ifndef OTPKIT_CSQLITE_SHIM_H
#define OTPKIT_CSQLITE_SHIM_H

#include <sqlite3.h>

// sqlite3_bind_text with SQLITE_STATIC: the bytes must stay put until the binding is cleared.
static inline int otp_sqlite3_bind_text_static(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_STATIC);
}

// sqlite3_bind_blob with SQLITE_STATIC: the bytes must stay put until the binding is cleared.
static inline int otp_sqlite3_bind_blob_static(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_STATIC);
}

#endif
