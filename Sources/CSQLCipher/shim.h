#ifndef HUSH_CSQLCIPHER_SHIM_H
#define HUSH_CSQLCIPHER_SHIM_H
// SQLITE_HAS_CODEC exposes sqlite3_key/sqlite3_rekey in SQLCipher's header.
#define SQLITE_HAS_CODEC 1
// Include SQLCipher's header by its own path, never a bare <sqlite3.h>, which
// could resolve to plain SQLite's header from libsqlite3-dev.
#include <sqlcipher/sqlite3.h>
#endif
