#include "ext/server/prepared_cache.h"

#include "ext/server/md5.h"

namespace cassette::server {

std::string PreparedCache::id_of(std::string_view query, std::string_view keyspace,
                                 bool qualified) {
  if (qualified || keyspace.empty()) return md5(query);
  std::string text(keyspace);
  text += query;
  return md5(text);
}

void PreparedCache::put(const std::string& id,
                        std::shared_ptr<const cql::PreparedStatement> statement) {
  std::lock_guard lock(mutex_);
  if (auto it = by_id_.find(id); it != by_id_.end()) {
    // Prepared again (after a schema change): the newest preparation replaces the old one.
    it->second->second = std::move(statement);
    entries_.splice(entries_.begin(), entries_, it->second);
    return;
  }
  entries_.emplace_front(id, std::move(statement));
  by_id_[id] = entries_.begin();
  if (entries_.size() > capacity_) {
    by_id_.erase(entries_.back().first);
    entries_.pop_back();
  }
}

std::shared_ptr<const cql::PreparedStatement> PreparedCache::find(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return it->second->second;
}

}  // namespace cassette::server
