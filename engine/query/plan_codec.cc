// Plan::encode / Plan::decode / Plan::explain: the text forms of a plan.
//
//   <access> [<argument>...] [reverse] [limit] [offset] [values(<column>,...)]
//   access   = partitions | token-range | index | scan
//   argument = <column><op>, op one of = < <= > >= and " IN" (a separate word); the token is
//              written token(); a column name other than [a-z0-9_]+ is double-quoted ("" inside)
//   values   = the columns the host reads (Plan::value_columns), absent when it reads every one
//
// e.g. "partitions source= hour= ts< reverse limit". The same text is what SQLite's EXPLAIN
// QUERY PLAN shows as the index string, so it is meant to be read by people too.
#include <algorithm>
#include <cctype>

#include "engine/query/query.h"

namespace cassette::query {

namespace {

const char* access_name(AccessKind kind) {
  switch (kind) {
    case AccessKind::kPartitions:
      return "partitions";
    case AccessKind::kTokenRange:
      return "token-range";
    case AccessKind::kIndexScan:
      return "index";
    case AccessKind::kFullScan:
      return "scan";
  }
  return "scan";
}

const char* operator_text(Operator op) {
  switch (op) {
    case Operator::kEq:
      return "=";
    case Operator::kIn:
      return " IN";
    case Operator::kLt:
      return "<";
    case Operator::kLe:
      return "<=";
    case Operator::kGt:
      return ">";
    case Operator::kGe:
      return ">=";
    case Operator::kLimit:
      return " LIMIT";
    case Operator::kOffset:
      return " OFFSET";
  }
  return "=";
}

bool is_plain(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return true;
}

std::string column_text(const schema::TableDef& table, int column) {
  if (column == kTokenColumn) return "token()";
  const std::string& name = table.columns[static_cast<size_t>(column)].name;
  if (is_plain(name)) return name;
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string Plan::encode(const schema::TableDef& table) const {
  std::string out = access_name(access);
  for (const Constraint& c : arguments) {
    out += ' ';
    out += column_text(table, c.column);
    out += operator_text(c.op);
  }
  if (reverse) out += " reverse";
  if (limit_consumed) out += " limit";
  if (offset_consumed) out += " offset";
  if (value_columns) {
    out += " values(";
    for (size_t i = 0; i < value_columns->size(); ++i) {
      if (i > 0) out += ',';
      out += column_text(table, (*value_columns)[i]);
    }
    out += ')';
  }
  return out;
}

Result<Plan> Plan::decode(std::string_view text, const schema::TableDef& table) {
  Plan plan;
  auto bad = [&]() {
    return Status::invalid_argument(fmt::format("Malformed query plan \"{}\"", text));
  };
  size_t i = 0;
  auto skip_spaces = [&]() {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  auto word = [&]() {
    size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    return text.substr(start, i - start);
  };
  // A column name, quoted or plain, as an index in table.columns.
  auto parse_column = [&](int* column) {
    std::string name;
    if (i < text.size() && text[i] == '"') {
      ++i;
      while (true) {
        if (i >= text.size()) return false;
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            name += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        name += text[i++];
      }
    } else {
      while (i < text.size() &&
             (std::islower(static_cast<unsigned char>(text[i])) ||
              std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
        name += text[i++];
      }
    }
    const schema::ColumnDef* def = table.find_column(name);
    if (def == nullptr) return false;
    *column = static_cast<int>(def - table.columns.data());
    return true;
  };
  std::string_view access = word();
  if (access == "partitions")
    plan.access = AccessKind::kPartitions;
  else if (access == "token-range")
    plan.access = AccessKind::kTokenRange;
  else if (access == "index")
    plan.access = AccessKind::kIndexScan;
  else if (access == "scan")
    plan.access = AccessKind::kFullScan;
  else
    return bad();
  while (true) {
    skip_spaces();
    if (i >= text.size()) break;
    {
      size_t start = i;
      std::string_view flag = word();
      if (flag == "reverse" || flag == "limit" || flag == "offset") {
        (flag == "reverse" ? plan.reverse
         : flag == "limit" ? plan.limit_consumed
                           : plan.offset_consumed) = true;
        continue;
      }
      i = start;  // a column name that only starts like a flag
    }
    if (text.substr(i).starts_with("values(")) {  // (a column named values is `values<op>`)
      i += 7;
      plan.value_columns.emplace();
      while (i < text.size() && text[i] != ')') {
        if (!plan.value_columns->empty() && text[i++] != ',') return bad();
        int column = -1;
        if (!parse_column(&column)) return bad();
        plan.value_columns->push_back(column);
      }
      if (i >= text.size()) return bad();
      ++i;
      continue;
    }
    // A column: token(), a quoted name, or a plain one.
    Constraint c;
    if (text.substr(i).starts_with("token()")) {
      c.column = kTokenColumn;
      i += 7;
    } else if (!parse_column(&c.column)) {
      return bad();
    }
    std::string_view rest = text.substr(i);
    if (rest.starts_with("<="))
      c.op = Operator::kLe, i += 2;
    else if (rest.starts_with(">="))
      c.op = Operator::kGe, i += 2;
    else if (rest.starts_with("<"))
      c.op = Operator::kLt, i += 1;
    else if (rest.starts_with(">"))
      c.op = Operator::kGt, i += 1;
    else if (rest.starts_with("="))
      c.op = Operator::kEq, i += 1;
    else if (rest.starts_with(" IN"))
      c.op = Operator::kIn, i += 3;
    else
      return bad();
    if (i < text.size() && text[i] != ' ') return bad();
    plan.arguments.push_back(c);
  }
  plan.order_satisfied = true;  // the host decided; the cursor only needs `reverse`
  return plan;
}

std::string Plan::explain(const schema::TableDef& table) const {
  std::string out;
  auto columns_with = [&](auto accept) {
    // Each column once, in argument order (a slice `ts > ? AND ts < ?` is two arguments on ts).
    std::string list;
    std::vector<int> listed;
    for (const Constraint& c : arguments) {
      if (!accept(c) || std::find(listed.begin(), listed.end(), c.column) != listed.end()) continue;
      listed.push_back(c.column);
      if (!list.empty()) list += ", ";
      list += column_text(table, c.column);
    }
    return list;
  };
  auto kind_of = [&](const Constraint& c) {
    return c.column == kTokenColumn ? schema::ColumnKind::kRegular
                                    : table.columns[static_cast<size_t>(c.column)].kind;
  };
  switch (access) {
    case AccessKind::kPartitions:
      out = "partition lookup on (" + columns_with([&](const Constraint& c) {
              return c.column != kTokenColumn && kind_of(c) == schema::ColumnKind::kPartitionKey;
            }) +
            ")";
      break;
    case AccessKind::kTokenRange:
      out = "token range scan";
      break;
    case AccessKind::kIndexScan:
      out = "filtered scan on indexed (" + columns_with([&](const Constraint& c) {
              return c.column != kTokenColumn && kind_of(c) == schema::ColumnKind::kRegular;
            }) +
            ")";
      break;
    case AccessKind::kFullScan:
      out = "full scan";
      break;
  }
  std::string clustering = columns_with([&](const Constraint& c) {
    return c.column != kTokenColumn && kind_of(c) == schema::ColumnKind::kClustering;
  });
  if (!clustering.empty()) out += ", clustering slice on " + clustering;
  if (reverse) out += ", reversed";
  if (limit_consumed) out += ", limit";
  if (offset_consumed) out += ", offset";
  return out;
}

}  // namespace cassette::query
