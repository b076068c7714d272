// Fuzz target: the MANIFEST. The input's first byte chooses the manifest's bytes:
//   bit 1 clear: the rest of the input, as is;
//   bit 1 set:   the manifest of a store this process made (two tables flushed to SSTables, more
//                rows in the log after them), with the rest of the input applied as patches
//                (pairs of bytes: an offset modulo its size, a byte to XOR there), so the file
//                ids, sizes and log positions stay close to ones that exist;
// and bit 0 says whether to put its checksum right first.
//
// Beyond "no crash", it checks:
//  - a manifest that decodes encodes back to the same bytes; a failure is a Corruption naming
//    the file;
//  - a store opened with it as its MANIFEST either fails with an error naming a file, or opens
//    and reads every table the manifest names (and the two the store had) without crashing,
//    with errors, if any, that are Corruption.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/manifest.h"
#include "engine/storage/mutation_builder.h"
#include "engine/storage/store.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace cassette;
using namespace cassette::storage;

void write_rows(Store& store, TableId table, int first, int count) {
  MutationBuilder batch;
  for (int i = first; i < first + count; ++i) {
    ClusteringRow row;
    row.clustering = "\x01row" + std::to_string(i);
    ColumnData column;
    column.id = 1;
    column.cell = Cell::live(kAutoTimestamp, "value " + std::to_string(i));
    row.row.columns.push_back(column);
    batch.partition(table, "key" + std::to_string(i % 7)).rows.push_back(row);
  }
  auto applied = apply_mutations(store, batch);
  FUZZ_CHECK(applied.is_ok(), applied.status().message());
}

// A store with SSTables for tables 1 and 2 and rows in its log after them.
const std::string& template_store() {
  static const std::string path = [] {
    std::string dir = fuzz::scratch_path("template");
    StoreOptions options;
    options.background_threads = false;
    options.sync = SyncMode::kOff;
    auto store = Store::open(dir, options);
    FUZZ_CHECK(store.is_ok(), store.status().message());
    write_rows(**store, 1, 0, 50);
    write_rows(**store, 2, 0, 20);
    FUZZ_CHECK((*store)->flush().is_ok(), "flush");
    write_rows(**store, 1, 50, 10);
    return dir;
  }();
  return path;
}

std::string manifest_bytes(fuzz::InputReader& in, bool patch) {
  if (!patch) return std::string(in.take_rest());
  auto bytes = file::read_whole_file(template_store() + "/MANIFEST");
  FUZZ_CHECK(bytes.is_ok(), bytes.status().message());
  std::string manifest = *bytes;
  while (in.rest().size() >= 2) {
    const size_t offset = in.byte() % manifest.size();
    manifest[offset] = static_cast<char>(manifest[offset] ^ in.byte());
  }
  return manifest;
}

void repair_checksum(std::string* manifest) {
  if (manifest->size() < 4) return;
  std::string crc;
  const size_t body = manifest->size() - 4;
  coding::put_fixed32(&crc,
                      crc32c::mask(crc32c::value(std::string_view(*manifest).substr(0, body))));
  manifest->replace(body, 4, crc);
}

void check_store(const std::string& manifest, const std::vector<TableId>& named) {
  const std::string dir = fuzz::scratch_path("store");
  fuzz::copy_tree(template_store(), dir);
  fuzz::write_file(dir + "/MANIFEST", manifest);
  StoreOptions options;
  options.background_threads = false;
  options.sync = SyncMode::kOff;
  auto store = Store::open(dir, options);
  if (!store.is_ok()) {
    FUZZ_CHECK(store.status().message().find(dir) != std::string::npos,
               "a failed open does not name a file: " + store.status().message());
    return;
  }
  auto snapshot = (*store)->snapshot();
  FUZZ_CHECK(snapshot.is_ok(), snapshot.status().message());
  std::vector<TableId> tables = {1, 2};
  tables.insert(tables.end(), named.begin(), named.end());
  for (TableId table : tables) {
    auto cursor = (*store)->read(**snapshot, table, Store::range_spec(TokenRange{}));
    while (cursor->next()) {
    }
    FUZZ_CHECK(cursor->status().is_ok() || cursor->status().is_corruption(),
               cursor->status().message());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::InputReader in(std::string_view(reinterpret_cast<const char*>(data), size));
  const uint8_t mode = in.byte();
  std::string manifest = manifest_bytes(in, mode & 2);
  if (mode & 1) repair_checksum(&manifest);

  auto decoded = decode_manifest(manifest, "MANIFEST");
  std::vector<TableId> named;
  if (decoded.is_ok()) {
    FUZZ_CHECK(encode_manifest(*decoded) == manifest, "a manifest does not encode back");
    for (const ManifestFile& f : decoded->files) named.push_back(f.table);
    if (named.size() > 8) named.resize(8);
  } else {
    FUZZ_CHECK(decoded.status().is_corruption() &&
                   decoded.status().message().starts_with("manifest MANIFEST: "),
               decoded.status().message());
  }
  check_store(manifest, named);
  return 0;
}
