#include "engine/schema/index_components.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "engine/types/byte_comparable.h"

namespace cassette::schema {

namespace {

// The byte-comparable term of one value; nothing when it cannot be encoded (a malformed
// value: it never matches, and the re-check agrees). An empty value (zero bytes) is a term only
// of a literal type (text, ascii, boolean, a frozen value, a map entry), as Cassandra 5.0 indexes
// it (CASSANDRA-20313): an empty int or uuid is never found through the index.
void add_term(const types::CqlType& type, std::string_view value, std::string* prefix,
              std::vector<std::string>* out) {
  if (value.empty() && prefix == nullptr && sai_supports_ranges(type)) return;
  std::string term = prefix != nullptr ? *prefix : std::string();
  if (!types::encode_key_component(type, value, false, &term).is_ok()) return;
  out->push_back(std::move(term));
}

}  // namespace

bool is_sai_index(const IndexDef& index) {
  std::string name;
  for (char c : index.custom_class)
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "sai" || name == "storageattachedindex" ||
         name == "org.apache.cassandra.index.sai.storageattachedindex";
}

bool sai_supports_ranges(const types::CqlType& type) {
  using types::TypeKind;
  if (type.is_collection() || type.kind == TypeKind::kTuple || type.kind == TypeKind::kUdt ||
      type.kind == TypeKind::kVector) {
    return false;
  }
  switch (type.kind) {
    case TypeKind::kText:
    case TypeKind::kAscii:
    case TypeKind::kBoolean:
      return false;
    default:
      return true;
  }
}

bool sai_folds_case(const types::CqlType& type) {
  return type.kind == types::TypeKind::kText || type.kind == types::TypeKind::kAscii;
}

uint8_t sai_text_analysis(const IndexDef& index, const ColumnDef& column) {
  if (!is_sai_index(index) || !sai_folds_case(column.type)) return 0;
  uint8_t analysis = 0;
  for (const auto& [name, value] : index.options) {
    std::string n = sai_fold_case(name), v = sai_fold_case(value);
    if (n == "case_sensitive" && v == "false") analysis |= kLowerCase;
    if (n == "normalize" && v == "true") analysis |= kNormalize;
    if (n == "ascii" && v == "true") analysis |= kAsciiFold;
  }
  return analysis;
}

std::string sai_fold_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::optional<SaiIndex> sai_index(const TableDef& table, const IndexDef& index) {
  // Native indexes (CREATE INDEX, answered by the same structure, with 2i's rules) and SAI.
  if (!index.custom_class.empty() && !is_sai_index(index)) return std::nullopt;
  const ColumnDef* column = table.find_column(index.column);
  if (column == nullptr) return std::nullopt;
  return sai_column_index(*column, index.target, sai_text_analysis(index, *column));
}

std::optional<SaiIndex> sai_column_index(const ColumnDef& column, IndexDef::Target target,
                                         uint8_t analysis) {
  if (column.is_primary_key()) return std::nullopt;
  if (column.type.kind == types::TypeKind::kVector) return std::nullopt;  // the ANN index's
  const types::CqlType type = column.type;
  static constexpr char kTargets[] = {'v', 'k', 'e', 'f'};
  SaiIndex out;
  const std::string name = "c" + std::to_string(column.id) + kTargets[static_cast<int>(target)];
  out.component = "sai3." + name;
  out.column.legacy_components = {"sai2." + name, "sai." + name};
  out.column.column = column.id;
  out.column.is_static = column.is_static();
  using Target = IndexDef::Target;
  const bool multi = type.is_multi_cell();
  if (type.is_collection() && multi) {
    if (type.kind == types::TypeKind::kSet && target == Target::kValues) {
      out.column.terms = [type](std::string_view, std::string_view path,
                                std::vector<std::string>* terms) {
        add_term(type.params[0], path, nullptr, terms);
      };
    } else if (type.kind == types::TypeKind::kList && target == Target::kValues) {
      out.column.terms = [type](std::string_view value, std::string_view,
                                std::vector<std::string>* terms) {
        add_term(type.params[0], value, nullptr, terms);
      };
    } else if (type.kind == types::TypeKind::kMap && target == Target::kValues) {
      out.column.terms = [type](std::string_view value, std::string_view,
                                std::vector<std::string>* terms) {
        add_term(type.params[1], value, nullptr, terms);
      };
    } else if (type.kind == types::TypeKind::kMap && target == Target::kKeys) {
      out.column.terms = [type](std::string_view, std::string_view path,
                                std::vector<std::string>* terms) {
        add_term(type.params[0], path, nullptr, terms);
      };
    } else if (type.kind == types::TypeKind::kMap && target == Target::kEntries) {
      out.column.terms = [type](std::string_view value, std::string_view path,
                                std::vector<std::string>* terms) {
        std::string key;
        if (!types::encode_key_component(type.params[0], path, false, &key).is_ok()) return;
        add_term(type.params[1], value, &key, terms);
      };
    } else {
      return std::nullopt;
    }
    return out;
  }
  if (multi) return std::nullopt;  // a non-frozen UDT
  if (analysis != 0 && sai_folds_case(type)) {
    // Version 1 knew only ASCII lower case: its components of such an index are not read.
    if (analysis & kLowerCase) out.component += 'i';
    if (analysis & kNormalize) out.component += 'n';
    if (analysis & kAsciiFold) out.component += 'a';
    out.column.legacy_components = {"sai2." + out.component.substr(5)};
    out.column.terms = [type, analysis](std::string_view value, std::string_view,
                                        std::vector<std::string>* terms) {
      add_term(type, sai_analyze(analysis, value), nullptr, terms);
    };
    return out;
  }
  out.column.terms = [type](std::string_view value, std::string_view,
                            std::vector<std::string>* terms) {
    add_term(type, value, nullptr, terms);
  };
  return out;
}

std::optional<std::string> ann_component(const TableDef& table, const IndexDef& index) {
  if (!is_sai_index(index)) return std::nullopt;
  const ColumnDef* column = table.find_column(index.column);
  if (column == nullptr || column->type.kind != types::TypeKind::kVector) return std::nullopt;
  auto option = index.options.find("similarity_function");
  std::string name = "ann.c" + std::to_string(column->id) + "." +
                     (option == index.options.end() ? "cosine" : sai_fold_case(option->second));
  if (!storage::valid_component_name(name)) return std::nullopt;
  return name;
}

std::vector<int> sai_indexed_columns(const Schema& schema, const TableDef& table) {
  std::vector<int> columns;
  for (const auto& index : schema.indexes_on(table)) {
    if (index->target != IndexDef::Target::kValues && index->target != IndexDef::Target::kFull) {
      continue;
    }
    const ColumnDef* c = table.find_column(index->column);
    if (c && !c->is_primary_key()) columns.push_back(static_cast<int>(c - table.columns.data()));
  }
  return columns;
}

std::vector<uint8_t> sai_column_analyses(const Schema& schema, const TableDef& table) {
  std::vector<uint8_t> analyses(table.columns.size(), 0);
  std::vector<bool> exact(table.columns.size(), false);
  for (const auto& index : schema.indexes_on(table)) {
    if (index->target != IndexDef::Target::kValues) continue;
    const ColumnDef* c = table.find_column(index->column);
    if (c == nullptr || c->is_primary_key()) continue;
    const size_t i = static_cast<size_t>(c - table.columns.data());
    const uint8_t analysis = sai_text_analysis(*index, *c);
    if (analysis == 0) {
      exact[i] = true;
    } else if (analyses[i] == 0) {
      analyses[i] = analysis;
    }
  }
  for (size_t i = 0; i < analyses.size(); ++i) {
    if (exact[i]) analyses[i] = 0;
  }
  return analyses;
}

std::shared_ptr<const storage::IndexComponentMap> index_components(const Schema& schema) {
  auto map = std::make_shared<storage::IndexComponentMap>();
  for (const auto& [ks_name, keyspace] : schema.keyspaces) {
    for (const auto& [name, index] : keyspace->indexes) {
      std::shared_ptr<const TableDef> table = schema.find_table(ks_name, index->table);
      if (table == nullptr) continue;
      if (std::optional<std::string> ann = ann_component(*table, *index)) {
        std::vector<storage::IndexComponentFactory>& factories = (*map)[table->table_id];
        for (std::string file : {*ann, *ann + ".meta"}) {
          if (std::none_of(factories.begin(), factories.end(),
                           [&](const auto& f) { return f.name == file; })) {
            factories.push_back(
                {file, [] { return std::unique_ptr<storage::IndexComponentBuilder>(); }});
          }
        }
        continue;
      }
      std::optional<SaiIndex> sai = sai_index(*table, *index);
      if (!sai) continue;
      storage::SaiColumn column = sai->column;
      std::vector<storage::IndexComponentFactory>& factories = (*map)[table->table_id];
      // Two indexes of one column and target (a legacy one and an SAI one) share a component.
      if (std::any_of(factories.begin(), factories.end(),
                      [&](const auto& f) { return f.name == sai->component; })) {
        continue;
      }
      factories.push_back({sai->component, [column] { return storage::make_sai_builder(column); }});
      // Older versions' components of the index (a store written before version 3), no longer
      // written: registered so that DROP INDEX removes them too.
      for (const std::string& legacy : column.legacy_components) {
        factories.push_back(
            {legacy, [] { return std::unique_ptr<storage::IndexComponentBuilder>(); }});
      }
    }
  }
  return map;
}

void apply_index_components(storage::Store& store, const Schema& schema, const Schema* previous) {
  std::shared_ptr<const storage::IndexComponentMap> now = index_components(schema);
  store.set_index_components(now);
  if (previous == nullptr) return;
  std::shared_ptr<const storage::IndexComponentMap> before = index_components(*previous);
  auto names = [](const storage::IndexComponentMap& map) {
    std::set<std::pair<storage::TableId, std::string>> out;
    for (const auto& [table, factories] : map) {
      for (const auto& f : factories) out.insert({table, f.name});
    }
    return out;
  };
  auto old_names = names(*before);
  auto new_names = names(*now);
  for (const auto& [table, factories] : *now) {
    for (const auto& f : factories) {
      if (!old_names.contains({table, f.name})) (void)store.build_index_components(table, f);
    }
  }
  for (const auto& [table, name] : old_names) {
    if (!new_names.contains({table, name})) (void)store.remove_index_components(table, name);
  }
}

}  // namespace cassette::schema
