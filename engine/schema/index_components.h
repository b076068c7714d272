// The schema's indexes as storage index components (engine/storage/index_component.h): for
// each native index (CREATE INDEX) and SAI index (USING 'sai') on a regular or static column,
// one SAI component per SSTable (engine/storage/sai_component.h) whose terms are the indexed
// values in byte-comparable order (engine/types/byte_comparable.h):
//   a simple column      its value
//   values(list|set|map) each element (a set's elements, a list's or a map's values)
//   keys(map)            each key
//   entries(map)         each key followed by its value
//   full(frozen)         the whole collection
// Indexes on key columns have no component (their queries stay filtered scans); so have
// custom indexes of other classes, which other builders may serve (the vector index).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/schema/schema.h"
#include "engine/storage/sai_component.h"
#include "engine/storage/store.h"

namespace cassette::schema {

struct SaiIndex {
  // The component's name: "sai3.c<column id><v|k|e|f>", then i, n and a for the text analysis
  // (lower case, normalize, ascii). Version 2's "sai2." name and version 1's "sai." (no text
  // analysis) are column.legacy_components: still read where an SSTable lacks the new one.
  std::string component;
  storage::SaiColumn column;
};

// Whether `index` is a storage-attached index (USING 'sai' / 'StorageAttachedIndex', any case).
bool is_sai_index(const IndexDef& index);
// Whether SAI answers ranges on values of `type`: numbers, dates, times, inet addresses; not
// the "literal" types (text, ascii, boolean, collections and other frozen values).
bool sai_supports_ranges(const types::CqlType& type);

// SAI's text analysis (Cassandra 5.0's NonTokenizingAnalyzer) on a text or ascii column: the
// index options case_sensitive = 'false' (lower case, Unicode's full case mapping as Java's
// toLowerCase), normalize = 'true' (Unicode NFC) and ascii = 'true' (Latin letters and symbols
// folded to ASCII, as Lucene's ASCIIFoldingFilter), applied in that order to the indexed values
// and to the values an equality compares them with. Bits of a TextAnalysis; 0: none.
enum TextAnalysis : uint8_t {
  kLowerCase = 1,
  kNormalize = 2,
  kAsciiFold = 4,
};
uint8_t sai_text_analysis(const IndexDef& index, const ColumnDef& column);
bool sai_folds_case(const types::CqlType& type);  // whether the type's values are analyzed
std::string sai_analyze(uint8_t analysis, std::string_view text);
// ASCII letters to lower case (option names and values).
std::string sai_fold_case(std::string_view text);

// The SAI component of `index` on `table`; nullopt when it has none.
std::optional<SaiIndex> sai_index(const TableDef& table, const IndexDef& index);
// The SAI component of an index of `target` on `column`: its name depends on the column and the
// target only (so that an index dropped and created again on something else never reads the old
// one's components, and a host that knows a column is indexed finds it without the index).
std::optional<SaiIndex> sai_column_index(const ColumnDef& column, IndexDef::Target target,
                                         uint8_t analysis = 0);

// The ANN component of a storage-attached index on a vector column: "ann.c<column id>.<similarity
// function>" (and its ".meta" file; FORMAT.md, "ANN components"); nullopt for other indexes. It is
// registered with the store under both names so that it goes with its SSTable and at DROP INDEX,
// but no builder writes it at flush or compaction: engine/cql/ann_index.h builds a graph in the
// background once a query or CREATE INDEX finds an SSTable without one, and saves it then.
std::optional<std::string> ann_component(const TableDef& table, const IndexDef& index);

// The columns of `table` (indexes into TableDef::columns) whose values (or frozen whole value)
// an index of `schema` holds: the SQL hosts plan =, IN and ranges on them as index reads.
std::vector<int> sai_indexed_columns(const Schema& schema, const TableDef& table);
// By column of `table` (matched by name: a host's older definition of the table will do): the
// text analysis (TextAnalysis bits) of the SAI index an equality on the column reads; 0 when no
// index analyzes its values, or one of its indexes compares them as written (an exact read).
std::vector<uint8_t> sai_column_analyses(const Schema& schema, const TableDef& table);

// Every table's components, for Store::set_index_components.
std::shared_ptr<const storage::IndexComponentMap> index_components(const Schema& schema);

// Makes the store write the schema's components from now on and brings the SSTables in line
// with `schema`: components of indexes new since `previous` are built for the SSTables already
// written (an index created on a table with data serves once they are), those of indexes gone
// are removed. Errors are left to the next query (which falls back to scanning): the schema
// change itself has succeeded.
void apply_index_components(storage::Store& store, const Schema& schema, const Schema* previous);

}  // namespace cassette::schema
