// Helpers for the write-path tests (INSERT, UPDATE, DELETE, BATCH, LWT): a session on an
// in-memory store with a manual clock, results printed as "a|b|c" strings in cqlsh's formatting.
#pragma once

#include "tests/unit/cql_test_fixture.h"

namespace cassette::test {

using WriteFixture = CqlFixture;

}  // namespace cassette::test
