// The SQLite API as a loadable extension sees it: every call goes through the routine table the
// host passes to sqlite3_cassette_init (extension.cc defines it with SQLITE_EXTENSION_INIT1).
#pragma once

#include <sqlite3ext.h>

SQLITE_EXTENSION_INIT3
