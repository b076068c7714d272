/* The extension loaded from C through sqlite3_load_extension (issue: "loads ... through
 * sqlite3_load_extension from C"), run by tests/sqlite/test_load_from_c.sh:
 *
 *   load_from_c EXTENSION_PATH DATABASE
 *
 * Loads the extension (naming its entry point), creates a CQL table, writes through
 * SQL and through cql(), and prints the rows it reads back; the script compares the output. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static int print_row(void* unused, int n, char** values, char** names) {
  (void)unused;
  for (int i = 0; i < n; i++)
    printf("%s%s=%s", i ? " " : "", names[i], values[i] ? values[i] : "NULL");
  printf("\n");
  return 0;
}

static int run(sqlite3* db, const char* sql) {
  char* error = NULL;
  if (sqlite3_exec(db, sql, print_row, NULL, &error) != SQLITE_OK) {
    printf("error: %s\n", error);
    sqlite3_free(error);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: load_from_c EXTENSION_PATH DATABASE\n");
    return 2;
  }
  sqlite3* db;
  if (sqlite3_open(argv[2], &db) != SQLITE_OK) return 1;
  char* error = NULL;
  sqlite3_enable_load_extension(db, 1);
  if (sqlite3_load_extension(db, argv[1], "sqlite3_cassette_init", &error) != SQLITE_OK) {
    printf("load failed: %s\n", error);
    return 1;
  }
  printf("loaded\n");
  int failures = 0;
  failures += run(db,
                  "CREATE VIRTUAL TABLE readings USING cql(sensor text, day int, at bigint, "
                  "value double, PRIMARY KEY ((sensor, day), at), CLUSTERING ORDER BY (at DESC))");
  failures += run(db, "INSERT INTO readings VALUES ('s1', 1, 10, 0.5), ('s1', 1, 20, 1.5)");
  failures += run(db,
                  "SELECT cql('INSERT INTO main.readings (sensor, day, at, value) "
                  "VALUES (''s1'', 1, 30, 2.5)') AS result");
  failures +=
      run(db, "SELECT sensor, day, at, value FROM readings WHERE sensor = 's1' AND day = 1");
  /* A bad write is refused with the engine's message and writes nothing. */
  run(db, "INSERT INTO readings VALUES (NULL, 1, 40, 3.5)");
  failures += run(db, "SELECT count(*) AS n FROM readings");
  sqlite3_close(db);
  return failures == 0 ? 0 : 1;
}
