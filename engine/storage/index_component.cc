#include "engine/storage/index_component.h"

#include <unistd.h>

#include <atomic>

#include "engine/storage/entry_iterator.h"
#include "engine/storage/index_component_removals.h"
#include "engine/storage/sstable_positions.h"
#include "engine/storage/sstable_reader.h"
#include "engine/util/file.h"

namespace cassette::storage {

namespace {
std::atomic<uint64_t> g_removals{0};
}  // namespace

uint64_t index_component_removals() {
  return g_removals.load(std::memory_order_acquire);
}

void note_index_component_removal() {
  g_removals.fetch_add(1, std::memory_order_acq_rel);
}

bool valid_component_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string index_component_path(std::string_view sstable_path, std::string_view name) {
  std::string path(sstable_path);
  path += '.';
  path += name;
  return path;
}

std::string_view component_sstable_name(std::string_view file_name) {
  size_t at = file_name.find(".sst.");
  if (at == std::string_view::npos || at + 5 == file_name.size()) return {};
  return file_name.substr(0, at + 4);
}

IndexComponentWriters::IndexComponentWriters(const std::vector<IndexComponentFactory>& factories) {
  for (const IndexComponentFactory& f : factories) {
    if (!valid_component_name(f.name) || !f.make) continue;
    std::unique_ptr<IndexComponentBuilder> builder = f.make();
    if (builder != nullptr) builders_.emplace_back(f.name, std::move(builder));
  }
}

Status IndexComponentWriters::add(std::string_view key, std::string_view value) {
  for (auto& [name, builder] : builders_) CASSETTE_RETURN_IF_ERROR(builder->add(key, value));
  return Status::ok();
}

void IndexComponentWriters::data_block(uint64_t offset, uint64_t size) {
  for (auto& [name, builder] : builders_) builder->data_block(offset, size);
}

Result<std::vector<std::string>> IndexComponentWriters::finish(const std::string& sstable_path) {
  std::vector<std::string> names;
  for (auto& [name, builder] : builders_) {
    Status s = builder->finish(index_component_path(sstable_path, name));
    if (!s.is_ok()) {
      for (const std::string& done : names) {
        (void)file::remove_file(index_component_path(sstable_path, done));
      }
      (void)file::remove_file(index_component_path(sstable_path, name));
      return s;
    }
    names.push_back(name);
  }
  builders_.clear();
  return names;
}

Status build_index_component(const SSTableReader& reader, const IndexComponentFactory& factory) {
  if (!valid_component_name(factory.name) || !factory.make) {
    return Status::invalid_argument("bad index component");
  }
  std::unique_ptr<IndexComponentBuilder> builder = factory.make();
  if (builder == nullptr) return Status::ok();
  // The data blocks, so that the builder learns where the entries lie as the writer tells it.
  CASSETTE_ASSIGN_OR_RETURN(std::vector<DataBlockRef> blocks, sstable_data_blocks(reader));
  size_t block = 0;
  std::unique_ptr<EntryIterator> it = reader.new_iterator();
  for (it->seek(""); it->valid(); it->next()) {
    // An entry lies in the first block whose index key is not below it.
    for (; block < blocks.size() && std::string_view(blocks[block].index_key) < it->key();
         ++block) {
      builder->data_block(blocks[block].handle.offset, blocks[block].handle.size);
    }
    CASSETTE_RETURN_IF_ERROR(builder->add(it->key(), it->value()));
  }
  CASSETTE_RETURN_IF_ERROR(it->status());
  for (; block < blocks.size(); ++block) {
    builder->data_block(blocks[block].handle.offset, blocks[block].handle.size);
  }
  // A temporary name of this process (a dead process's are removed when a store opens), renamed
  // over the final one: concurrent builders of the same component write the same bytes.
  static std::atomic<uint64_t> counter{0};
  std::string final_path = index_component_path(reader.path(), factory.name);
  size_t slash = final_path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : final_path.substr(0, slash);
  std::string temp = file::join(dir, "tmp-" + std::to_string(::getpid()) + "-c" +
                                         std::to_string(++counter) + ".sst." + factory.name);
  Status s = builder->finish(temp);
  if (s.is_ok()) s = file::rename_file(temp, final_path);
  if (!s.is_ok()) {
    (void)file::remove_file(temp);
    return s;
  }
  return file::sync_directory(dir);
}

}  // namespace cassette::storage
