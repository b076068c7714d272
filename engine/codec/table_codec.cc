// The table codec (see table_codec.h): CQL values <-> storage partitions, rows and cells.
#include "engine/codec/table_codec.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "engine/types/byte_comparable.h"
#include "engine/types/partition_key.h"
#include "engine/types/scalar.h"
#include "engine/util/coding.h"

namespace cassette::cql {

namespace {

using types::CqlType;
using types::TypeKind;

storage::Cell make_cell(int64_t timestamp, int64_t ttl, int64_t now_seconds, std::string value,
                        std::string path) {
  if (ttl > 0) {
    return storage::Cell::expiring(timestamp, ttl, now_seconds, std::move(value), std::move(path));
  }
  return storage::Cell::live(timestamp, std::move(value), std::move(path));
}

}  // namespace

std::string udt_field_path(size_t index) {
  return types::store_be(index, 2);
}

std::string partition_key_bytes(std::span<const std::string> components) {
  return types::serialize_partition_key(components);
}

std::string column_name_for_message(std::string_view name) {
  bool plain = !name.empty() && name[0] >= 'a' && name[0] <= 'z';
  for (char c : name) {
    plain = plain && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (plain) return std::string(name);
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

Status validate_partition_key_values(std::span<const std::string> components) {
  if (components.size() == 1 && components[0].empty()) {
    return Status::invalid_argument("Key may not be empty");
  }
  for (const std::string& component : components) {
    if (component.size() > types::kMaxPartitionKeyComponentSize) {
      return Status::invalid_argument(fmt::format("Key length of {} is longer than maximum of {}",
                                                  component.size(),
                                                  types::kMaxPartitionKeyComponentSize));
    }
  }
  return Status::ok();
}

Status validate_clustering_values(std::span<const std::string> values) {
  size_t total = 0;
  bool too_long = false;
  for (const std::string& value : values) {
    total += value.size();
    too_long |= value.size() > types::kMaxPartitionKeyComponentSize;
  }
  if (!too_long) return Status::ok();
  return Status::invalid_argument(fmt::format("Key length of {} is longer than maximum of {}",
                                              total, types::kMaxPartitionKeyComponentSize));
}

Result<std::vector<std::string>> partition_key_values(const schema::TableDef& table,
                                                      std::string_view key) {
  return types::split_partition_key(key, table.partition_key().size());
}

Result<std::string> clustering_key_bytes(const schema::TableDef& table,
                                         std::span<const std::string> values) {
  const schema::KeyLayout& layout = table.layout();
  if (values.size() > layout.clustering_types.size()) {
    return Status::internal(
        fmt::format("{} clustering values for a table with {} clustering columns", values.size(),
                    layout.clustering_types.size()));
  }
  std::string out;
  CASSETTE_RETURN_IF_ERROR(
      types::encode_clustering(layout.clustering_types, layout.clustering_orders(), values, &out));
  return out;
}

Result<std::vector<std::string>> clustering_values(const schema::TableDef& table,
                                                   std::string_view encoded) {
  const schema::KeyLayout& layout = table.layout();
  return types::decode_clustering(layout.clustering_types, layout.clustering_orders(), encoded);
}

namespace {

// The live cells of a complex column in the order of its value: a list's by their timeuuid paths
// (its order is their time order, which raw bytes do not give), the others by path as stored.
std::vector<const storage::Cell*> ordered_live_cells(const CqlType& type,
                                                     const storage::ColumnData& data) {
  std::vector<const storage::Cell*> live;
  for (const storage::Cell& cell : data.cells) {
    if (!cell.is_tombstone()) live.push_back(&cell);
  }
  if (type.kind == TypeKind::kList) {
    std::stable_sort(live.begin(), live.end(), [](const storage::Cell* a, const storage::Cell* b) {
      return types::compare_values(types::CqlType::simple(TypeKind::kTimeuuid), a->path, b->path) <
             0;
    });
  }
  return live;
}

}  // namespace

types::Value read_column(const schema::ColumnDef& column, const storage::Row& row) {
  const storage::ColumnData* data = row.find_column(column.id);
  if (data == nullptr) return std::nullopt;
  const CqlType& type = column.type;
  if (!data->complex) {
    const storage::Cell& cell = data->cell;
    if (cell.is_tombstone()) return std::nullopt;
    if (cell.is_counter()) {
      std::string value;
      coding::put_big_endian64(&value, static_cast<uint64_t>(cell.counter_value()));
      return value;
    }
    return cell.value;
  }
  const std::vector<const storage::Cell*> live = ordered_live_cells(type, *data);
  if (live.empty()) return std::nullopt;
  switch (type.kind) {
    case TypeKind::kList: {
      std::vector<std::string> elements;
      for (const storage::Cell* c : live) elements.push_back(c->value);
      return types::serialize_list(elements);
    }
    case TypeKind::kSet: {
      std::vector<std::string> elements;
      for (const storage::Cell* c : live) elements.push_back(c->path);
      return types::serialize_set(type.params[0], std::move(elements));
    }
    case TypeKind::kMap: {
      std::vector<std::pair<std::string, std::string>> entries;
      for (const storage::Cell* c : live) entries.emplace_back(c->path, c->value);
      return types::serialize_map(type.params[0], std::move(entries));
    }
    case TypeKind::kUdt: {
      std::vector<types::Value> fields(type.params.size());
      for (const storage::Cell* c : live) {
        if (c->path.size() != 2) continue;
        const size_t index = types::read_unsigned(c->path);
        if (index < fields.size()) fields[index] = c->value;
      }
      return types::serialize_tuple(fields);
    }
    default:
      return std::nullopt;
  }
}

Result<std::vector<storage::Cell>> element_cells(const schema::ColumnDef& column,
                                                 std::string_view serialized, int64_t timestamp,
                                                 int64_t ttl, int64_t now_seconds,
                                                 int64_t list_base_micros) {
  const CqlType& type = column.type;
  std::vector<storage::Cell> cells;
  switch (type.kind) {
    case TypeKind::kList: {
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                types::deserialize_list(serialized));
      uint64_t node = types::process_clock_seq_and_node();
      for (size_t i = 0; i < elements.size(); ++i) {
        cells.push_back(make_cell(timestamp, ttl, now_seconds, std::move(elements[i]),
                                  types::make_timeuuid(list_base_micros + int64_t(i), node)));
      }
      break;
    }
    case TypeKind::kSet: {
      CASSETTE_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                                types::deserialize_list(serialized));
      for (std::string& e : elements) {
        cells.push_back(make_cell(timestamp, ttl, now_seconds, {}, std::move(e)));
      }
      break;
    }
    case TypeKind::kMap: {
      CASSETTE_ASSIGN_OR_RETURN(auto entries, types::deserialize_map(serialized));
      for (auto& [k, v] : entries) {
        cells.push_back(make_cell(timestamp, ttl, now_seconds, std::move(v), std::move(k)));
      }
      break;
    }
    case TypeKind::kUdt: {
      CASSETTE_ASSIGN_OR_RETURN(std::vector<types::Value> fields,
                                types::deserialize_tuple(serialized));
      for (size_t i = 0; i < fields.size(); ++i) {
        if (!fields[i]) continue;  // the complex deletion written with the value removes it
        cells.push_back(
            make_cell(timestamp, ttl, now_seconds, std::move(*fields[i]), udt_field_path(i)));
      }
      break;
    }
    default:
      return Status::internal(
          fmt::format("element_cells on column {} which is not multi-cell", column.name));
  }
  // Storage keeps a complex column's cells sorted by path with unique paths (the last of equal
  // paths wins, as a later element of a literal would).
  std::stable_sort(cells.begin(), cells.end(),
                   [](const storage::Cell& a, const storage::Cell& b) { return a.path < b.path; });
  std::vector<storage::Cell> unique;
  for (storage::Cell& c : cells) {
    if (!unique.empty() && unique.back().path == c.path) {
      unique.back() = std::move(c);
    } else {
      unique.push_back(std::move(c));
    }
  }
  return unique;
}

std::optional<int64_t> column_writetime(const schema::ColumnDef& column, const storage::Row& row) {
  const storage::ColumnData* data = row.find_column(column.id);
  if (data == nullptr || data->complex || data->cell.is_tombstone()) return std::nullopt;
  return data->cell.timestamp;
}

std::optional<int64_t> column_ttl(const schema::ColumnDef& column, const storage::Row& row,
                                  int64_t now_seconds) {
  const storage::ColumnData* data = row.find_column(column.id);
  if (data == nullptr || data->complex || data->cell.is_tombstone() || !data->cell.is_expiring()) {
    return std::nullopt;
  }
  return std::max<int64_t>(0, data->cell.local_deletion_time - now_seconds);
}

std::optional<std::vector<std::optional<int64_t>>> element_times(const schema::ColumnDef& column,
                                                                 const storage::Row& row,
                                                                 bool writetime,
                                                                 int64_t now_seconds) {
  const storage::ColumnData* data = row.find_column(column.id);
  if (data == nullptr || !data->complex) return std::nullopt;
  const std::vector<const storage::Cell*> live = ordered_live_cells(column.type, *data);
  if (live.empty()) return std::nullopt;
  auto time_of = [&](const storage::Cell& c) -> std::optional<int64_t> {
    if (writetime) return c.timestamp;
    if (!c.is_expiring()) return std::nullopt;
    return std::max<int64_t>(0, c.local_deletion_time - now_seconds);
  };
  std::vector<std::optional<int64_t>> out;
  if (column.type.kind == TypeKind::kUdt) {
    // One entry per field, as the UDT value has: null for a field without a cell.
    out.resize(column.type.params.size());
    for (const storage::Cell* c : live) {
      if (c->path.size() != 2) continue;
      const size_t index = types::read_unsigned(c->path);
      if (index < out.size()) out[index] = time_of(*c);
    }
    return out;
  }
  for (const storage::Cell* c : live) out.push_back(time_of(*c));
  return out;
}

}  // namespace cassette::cql
