// FlatRowValues (engine/storage/flat_row_values.h): the row cache's layout of a head's simple
// cells. Each case builds it from Rows and checks every (row, column) answer.
#include "engine/storage/flat_row_values.h"

#include <doctest/doctest.h>

namespace cassette::test {

namespace {

using storage::Cell;
using storage::ColumnData;
using storage::FlatRowValues;
using storage::Row;

ColumnData simple(storage::ColumnId id, Cell cell) {
  ColumnData c;
  c.id = id;
  c.cell = std::move(cell);
  return c;
}

// The answer for (row, id) as text: the value in quotes, null, or in-row.
std::string answer(const FlatRowValues& flat, size_t row, storage::ColumnId id) {
  std::string_view v;
  switch (flat.find(row, id, &v)) {
    case FlatRowValues::Found::kValue:
      // Every value is followed by a NUL byte (handed on as a C string).
      CHECK(v.data()[v.size()] == '\0');
      return "'" + std::string(v) + "'";
    case FlatRowValues::Found::kNull:
      return "null";
    case FlatRowValues::Found::kInRow:
      return "in-row";
  }
  return "?";
}

}  // namespace

TEST_CASE("flat row values: values, nulls, and what stays in the row") {
  Row first;
  first.columns = {simple(1, Cell::live(10, "one")), simple(3, Cell::live(10, ""))};
  Row second;
  ColumnData list;
  list.id = 2;
  list.complex = true;
  list.cells = {Cell::live(10, "x", "p")};
  second.columns = {list, simple(3, Cell::counter(10, 5)),
                    simple(4, Cell::live(10, std::string("a\0b", 3)))};
  Row empty;
  FlatRowValues flat;
  const Row* rows[] = {&first, &second, &empty};
  flat.build(rows);
  CHECK(answer(flat, 0, 1) == "'one'");
  CHECK(answer(flat, 0, 2) == "null");
  CHECK(answer(flat, 0, 3) == "''");  // an empty value is a value, not null
  CHECK(answer(flat, 0, 4) == "null");
  CHECK(answer(flat, 0, 9) == "null");  // an id past every row's columns
  CHECK(answer(flat, 1, 1) == "null");
  CHECK(answer(flat, 1, 2) == "in-row");  // a collection
  CHECK(answer(flat, 1, 3) == "in-row");  // a counter
  CHECK(answer(flat, 1, 4) == std::string("'a\0b'", 5));
  CHECK(answer(flat, 2, 1) == "null");
  CHECK(flat.memory_bytes() > 0);
}

TEST_CASE("flat row values: tombstones and large column ids are left to the row") {
  Row row;
  row.columns = {simple(1, Cell::tombstone(10, 100)), simple(2, Cell::live(10, "v"))};
  FlatRowValues flat;
  const Row* rows[] = {&row};
  flat.build(rows);
  CHECK(answer(flat, 0, 1) == "in-row");
  CHECK(answer(flat, 0, 2) == "'v'");

  Row wide;
  wide.columns = {simple(2, Cell::live(10, "v")),
                  simple(FlatRowValues::kMaxColumnId + 1, Cell::live(10, "w"))};
  const Row* wide_rows[] = {&wide};
  flat.build(wide_rows);  // rebuilt: nothing of the first build is left
  CHECK(answer(flat, 0, 2) == "in-row");
  CHECK(answer(flat, 0, 1) == "in-row");
}

}  // namespace cassette::test
