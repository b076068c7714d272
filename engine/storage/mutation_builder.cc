#include "engine/storage/mutation_builder.h"

#include <functional>

#include "engine/storage/commit_record.h"
#include "engine/storage/internal_key.h"
#include "engine/storage/row_codec.h"
#include "engine/storage/store.h"
#include "engine/types/murmur3.h"

namespace cassette::storage {

uint64_t MutationBuilder::hash_of(TableId table, std::string_view partition_key) {
  uint64_t h = std::hash<std::string_view>{}(partition_key);
  return h ^ (table * 0x9E3779B97F4A7C15ull);
}

void MutationBuilder::insert_slot(uint64_t hash, size_t index) {
  size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].index_plus_one != 0) i = (i + 1) & mask;
  slots_[i] = Slot{hash, static_cast<uint32_t>(index + 1)};
}

void MutationBuilder::rebuild_index() {
  size_t capacity = 64;
  while (capacity < updates_.size() * 2 + 2) capacity *= 2;
  slots_.assign(capacity, Slot{});
  for (size_t i = 0; i < updates_.size(); ++i) {
    insert_slot(hash_of(updates_[i].table, updates_[i].partition_key), i);
  }
  index_stale_ = false;
}

PartitionUpdate& MutationBuilder::partition(TableId table, std::string_view partition_key) {
  auto append = [&]() -> PartitionUpdate& {
    PartitionUpdate& u = updates_.emplace_back();
    u.table = table;
    u.partition_key.assign(partition_key);
    return u;
  };
  if (slots_.empty() && updates_.size() <= kLinearLimit) {
    for (PartitionUpdate& u : updates_) {
      if (u.table == table && u.partition_key == partition_key) return u;
    }
    return append();
  }
  if (slots_.empty() || index_stale_) rebuild_index();
  uint64_t hash = hash_of(table, partition_key);
  size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i].index_plus_one != 0; i = (i + 1) & mask) {
    if (slots_[i].hash != hash) continue;
    PartitionUpdate& u = updates_[slots_[i].index_plus_one - 1];
    if (u.table == table && u.partition_key == partition_key) return u;
  }
  if ((updates_.size() + 1) * 2 > slots_.size()) {
    PartitionUpdate& u = append();
    rebuild_index();  // doubles the table
    return u;
  }
  insert_slot(hash, updates_.size());
  return append();
}

Status MutationBuilder::encode_to(EncodedBatch* batch) const {
  for (const PartitionUpdate& u : updates_) {
    CASSETTE_RETURN_IF_ERROR(validate_partition_key(u.partition_key));
  }
  std::string key;
  std::string value;
  // The partition's prefix once, then each entry's kind and clustering after it.
  auto add = [&](TableId table, size_t prefix_size, EntryKind kind, std::string_view clustering) {
    key.resize(prefix_size);
    key.push_back(static_cast<char>(kind));
    key.append(clustering);
    batch->add(table, key, value);
  };
  for (const PartitionUpdate& u : updates_) {
    key.clear();
    append_partition_prefix(&key, types::murmur3_token(u.partition_key), u.partition_key);
    const size_t prefix_size = key.size();
    if (!u.header.is_empty()) {
      value.clear();
      encode_header(u.header, &value);
      add(u.table, prefix_size, EntryKind::kPartitionHeader, {});
    }
    if (!u.static_row.is_empty()) {
      value.clear();
      encode_row(u.static_row, &value);
      add(u.table, prefix_size, EntryKind::kStaticRow, {});
    }
    for (const ClusteringRow& r : u.rows) {
      if (r.row.is_empty()) continue;
      value.clear();
      encode_row(r.row, &value);
      add(u.table, prefix_size, EntryKind::kRow, r.clustering);
    }
  }
  return Status::ok();
}

Result<int64_t> apply_mutations(Store& store, const MutationBuilder& builder) {
  EncodedBatch batch;
  CASSETTE_RETURN_IF_ERROR(builder.encode_to(&batch));
  return store.apply(batch);
}

Result<std::optional<int64_t>> apply_prepared_mutations(Store& store,
                                                        const PrepareMutations& prepare) {
  return store.apply_prepared([&](const Snapshot& snapshot, EncodedBatch& batch) -> Result<bool> {
    MutationBuilder builder;
    CASSETTE_ASSIGN_OR_RETURN(bool write, prepare(snapshot, builder));
    if (!write) return false;
    CASSETTE_RETURN_IF_ERROR(builder.encode_to(&batch));
    return true;
  });
}

}  // namespace cassette::storage
