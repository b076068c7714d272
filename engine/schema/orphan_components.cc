#include "engine/schema/orphan_components.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/schema/index_components.h"
#include "engine/storage/index_component.h"
#include "engine/storage/manifest.h"
#include "engine/util/file.h"

namespace cassette::schema {

size_t remove_orphan_components(storage::Store& store, const Schema& schema,
                                const std::function<bool()>& unchanged) {
  Result<std::shared_ptr<const storage::Snapshot>> snapshot = store.snapshot();
  if (!snapshot.is_ok()) return 0;
  std::shared_ptr<const storage::IndexComponentMap> registered = index_components(schema);
  // Each live SSTable of a table of the schema, by file name: the component names it may have.
  std::map<std::string, std::set<std::string>> allowed;
  const std::string dir = file::join(store.path(), "data");  // data/<table>-<file id>.sst
  for (const auto& [ks_name, keyspace] : schema.keyspaces) {
    for (const auto& [table_name, table] : keyspace->tables) {
      std::set<std::string> names;
      auto it = registered->find(table->table_id);
      if (it != registered->end()) {
        for (const storage::IndexComponentFactory& f : it->second) names.insert(f.name);
      }
      for (const auto& file : (*snapshot)->version->files(table->table_id)) {
        allowed[storage::sstable_file_name(file->meta.table, file->meta.file_id)] = names;
      }
    }
  }
  if (allowed.empty()) return 0;
  Result<std::vector<std::string>> listed = file::list_directory(dir);
  if (!listed.is_ok()) return 0;
  std::vector<std::string> orphans;
  for (const std::string& name : *listed) {
    const std::string_view owner = storage::component_sstable_name(name);
    if (owner.empty()) continue;
    auto it = allowed.find(std::string(owner));
    if (it == allowed.end()) continue;  // another table's, or an SSTable no longer live
    const std::string component = name.substr(owner.size() + 1);
    const bool ours = component.starts_with("sai.") || component.starts_with("sai2.") ||
                      component.starts_with("sai3.") || component.starts_with("ann.");
    if (ours && !it->second.contains(component)) orphans.push_back(name);
  }
  if (orphans.empty() || !unchanged()) return 0;
  size_t removed = 0;
  for (const std::string& name : orphans) {
    if (file::remove_file(file::join(dir, name)).is_ok()) ++removed;
  }
  return removed;
}

}  // namespace cassette::schema
