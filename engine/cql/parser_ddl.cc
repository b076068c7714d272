// Schema statements: CREATE/ALTER/DROP KEYSPACE, TABLE, INDEX and TYPE, TRUNCATE, USE and
// DESCRIBE.
#include <fmt/format.h>

#include "engine/cql/parser_internal.h"
#include "engine/schema/index_components.h"

namespace cassette::cql::parser_internal {

namespace {

bool parse_if_not_exists(Parser& p) {
  if (!p.accept_keyword("if")) return false;
  p.expect_keyword("not");
  p.expect_keyword("exists");
  return true;
}

// The parenthesised column list after PRIMARY KEY, `(k, c1, c2)` or `((k1, k2), c1)`: the
// partition key columns, then the clustering columns.
void parse_primary_key_columns(Parser& p, std::vector<std::string>* partition_key,
                               std::vector<std::string>* clustering) {
  p.expect_symbol("(");
  if (p.accept_symbol("(")) {
    partition_key->push_back(p.parse_ident());
    while (p.accept_symbol(",")) partition_key->push_back(p.parse_ident());
    p.expect_symbol(")");
  } else {
    partition_key->push_back(p.parse_ident());
  }
  while (p.accept_symbol(",")) clustering->push_back(p.parse_ident());
  p.expect_symbol(")");
}

bool parse_if_exists(Parser& p) {
  if (!p.accept_keyword("if")) return false;
  p.expect_keyword("exists");
  return true;
}

// Parser.g's columnMask: MASKED WITH DEFAULT | MASKED WITH f() | MASKED WITH f(term, ...). The
// caller has seen MASKED.
ColumnMaskClause parse_column_mask(Parser& p) {
  ColumnMaskClause mask;
  const size_t begin = p.start_offset();
  p.expect_keyword("masked");
  p.expect_keyword("with");
  if (p.accept_keyword("default")) {
    mask.function.name = "mask_default";
  } else {
    mask.function = p.parse_function_name();
    p.expect_symbol("(");
    if (!p.at_symbol(")")) {
      do {
        mask.arguments.push_back(p.parse_term());
      } while (p.accept_symbol(","));
    }
    p.expect_symbol(")");
  }
  mask.source = p.source_from(begin);
  return mask;
}

}  // namespace

UseStatement Parser::parse_use() {
  expect_keyword("use");
  return UseStatement{parse_keyspace_name()};
}

TruncateStatement Parser::parse_truncate() {
  expect_keyword("truncate");
  accept_keyword("table");
  return TruncateStatement{parse_qualified_name()};
}

// ---- CREATE ----------------------------------------------------------------------------------

Statement Parser::parse_create() {
  expect_keyword("create");
  if (accept_keyword("keyspace")) {
    CreateKeyspaceStatement stmt;
    stmt.if_not_exists = parse_if_not_exists(*this);
    stmt.keyspace = parse_keyspace_name();
    expect_keyword("with");
    stmt.properties = parse_properties();
    return stmt;
  }
  if (at_keyword("table")) return parse_create_table();
  if (accept_keyword("custom")) {
    if (!at_keyword("index")) fail_mismatch("K_INDEX");
    return parse_create_index(true);
  }
  if (at_keyword("index")) return parse_create_index(false);
  if (at_keyword("type")) return parse_create_type();
  if (accept_keyword("materialized")) {
    // CREATE MATERIALIZED VIEW [IF NOT EXISTS] v AS SELECT sel FROM base [WHERE ...]
    // PRIMARY KEY (...) [WITH ...] (Parser.g's createMaterializedViewStatement)
    expect_keyword("view");
    CreateViewStatement stmt;
    stmt.if_not_exists = parse_if_not_exists(*this);
    stmt.view = parse_qualified_name();
    expect_keyword("as");
    expect_keyword("select");
    stmt.select.selectors = parse_selectors();
    expect_keyword("from");
    stmt.select.table = parse_qualified_name();
    if (accept_keyword("where")) stmt.select.where = parse_where_clause();
    expect_keyword("primary");
    expect_keyword("key");
    parse_primary_key_columns(*this, &stmt.partition_key, &stmt.clustering);
    if (accept_keyword("with")) stmt.properties = parse_table_properties();
    return stmt;
  }
  fail_no_viable();
}

TableProperties Parser::parse_table_properties() {
  TableProperties props;
  do {
    if (at_keyword("compact") && at_keyword("storage", 1)) {
      advance();
      advance();
      props.compact_storage = true;
    } else if (at_keyword("clustering") && at_keyword("order", 1)) {
      advance();
      advance();
      expect_keyword("by");
      expect_symbol("(");
      do {
        OrderingClause o;
        o.column = parse_ident();
        if (accept_keyword("desc"))
          o.descending = true;
        else if (!accept_keyword("asc"))
          fail_no_viable();
        props.clustering_order.push_back(std::move(o));
      } while (accept_symbol(","));
      expect_symbol(")");
    } else {
      add_property(props.properties, parse_property());
    }
  } while (accept_keyword("and"));
  return props;
}

CreateTableStatement Parser::parse_create_table() {
  CreateTableStatement stmt;
  expect_keyword("table");
  stmt.if_not_exists = parse_if_not_exists(*this);
  stmt.table = parse_qualified_name();
  expect_symbol("(");
  auto table_column = [&]() {
    if (at_keyword("primary") && at_keyword("key", 1)) {
      advance();
      advance();
      ++stmt.primary_key_clauses;
      // a later PRIMARY KEY clause replaces an earlier one; more than one is an error anyway
      stmt.partition_key.clear();
      stmt.clustering.clear();
      parse_primary_key_columns(*this, &stmt.partition_key, &stmt.clustering);
      return;
    }
    ColumnDefinition column;
    column.name = parse_ident();
    column.type = parse_type();
    if (accept_keyword("static")) column.is_static = true;
    if (at_keyword("masked")) column.mask = parse_column_mask(*this);
    if (at_keyword("primary")) {
      advance();
      expect_keyword("key");
      column.primary_key = true;
      ++stmt.primary_key_clauses;
    }
    stmt.columns.push_back(std::move(column));
  };
  table_column();
  while (accept_symbol(",")) {
    if (at_symbol(")")) break;  // a trailing comma is allowed
    table_column();
  }
  expect_symbol(")");
  if (accept_keyword("with")) stmt.properties = parse_table_properties();
  return stmt;
}

CreateIndexStatement Parser::parse_create_index(bool custom) {
  CreateIndexStatement stmt;
  stmt.custom = custom;
  expect_keyword("index");
  stmt.if_not_exists = parse_if_not_exists(*this);
  if (!at_keyword("on")) {
    if (peek().kind == TokenKind::kQmark) {
      recognition_error("Bind variables cannot be used for index names");
      advance();
    } else {
      stmt.name = parse_ident();
    }
  }
  expect_keyword("on");
  stmt.table = parse_qualified_name();
  expect_symbol("(");
  int targets = 0;
  std::string target_list;  // as IndexTarget.asCqlString joins them, for the SAI message
  auto index_ident = [&]() {
    ++targets;
    if (targets > 1) target_list += ", ";
    static const std::pair<std::string_view, CreateIndexStatement::Target> kForms[] = {
        {"values", CreateIndexStatement::Target::kValues},
        {"keys", CreateIndexStatement::Target::kKeys},
        {"entries", CreateIndexStatement::Target::kEntries},
        {"full", CreateIndexStatement::Target::kFull}};
    for (const auto& [word, target] : kForms) {
      if (at_keyword(word) && at_symbol("(", 1)) {
        advance();
        advance();
        std::string column = parse_cident();
        expect_symbol(")");
        target_list += fmt::format("{}({})", word, column);
        if (targets == 1) {
          stmt.target = target;
          stmt.target_written = true;
          stmt.column = std::move(column);
        }
        return;
      }
    }
    std::string column = parse_cident();
    target_list += column;
    if (targets == 1) stmt.column = std::move(column);
  };
  if (!at_symbol(")")) {
    index_ident();
    while (accept_symbol(",")) index_ident();
  }
  expect_symbol(")");
  if (accept_keyword("using")) {
    if (peek().kind != TokenKind::kString) fail_mismatch("STRING_LITERAL");
    stmt.custom_class = advance().text;
  }
  if (accept_keyword("with")) stmt.options = parse_properties();
  // CreateIndexStatement.Raw.prepare's first checks, which need the target list the AST drops
  if (targets == 0 && !custom)
    throw Status::invalid_argument(
        "Only CUSTOM indexes can be created without specifying a target column");
  // USING names a custom class (CREATE INDEX ... USING 'sai' is custom in Cassandra 5.0), and
  // StorageAttachedIndex.validateOptions refuses more than one target; other classes keep
  // Cassette's one-column AST.
  if (targets > 1) {
    schema::IndexDef probe;
    probe.custom_class = stmt.custom_class;
    if (schema::is_sai_index(probe))
      throw Status::invalid_argument(fmt::format(
          "A storage-attached index cannot be created over multiple columns: {}", target_list));
    if (!custom) throw Status::invalid_argument("Only CUSTOM indexes support multiple columns");
  }
  return stmt;
}

CreateTypeStatement Parser::parse_create_type() {
  CreateTypeStatement stmt;
  expect_keyword("type");
  stmt.if_not_exists = parse_if_not_exists(*this);
  stmt.type = parse_user_type_name();
  expect_symbol("(");
  auto field = [&]() {
    std::string name = parse_ident();
    stmt.fields.emplace_back(std::move(name), parse_type());
  };
  field();
  while (accept_symbol(",")) {
    if (at_symbol(")")) break;
    field();
  }
  expect_symbol(")");
  return stmt;
}

// ---- ALTER -----------------------------------------------------------------------------------

Statement Parser::parse_alter() {
  expect_keyword("alter");
  if (accept_keyword("keyspace")) {
    AlterKeyspaceStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.keyspace = parse_keyspace_name();
    expect_keyword("with");
    stmt.properties = parse_properties();
    return stmt;
  }
  if (at_keyword("table")) return parse_alter_table();
  if (at_keyword("type")) return parse_alter_type();
  if (accept_keyword("materialized")) {
    expect_keyword("view");
    AlterViewStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.view = parse_qualified_name();
    expect_keyword("with");
    stmt.properties = parse_table_properties();
    return stmt;
  }
  fail_no_viable();
}

AlterTableStatement Parser::parse_alter_table() {
  AlterTableStatement stmt;
  expect_keyword("table");
  stmt.if_exists = parse_if_exists(*this);
  stmt.table = parse_qualified_name();
  if (accept_keyword("alter")) {
    stmt.kind = AlterTableStatement::Kind::kAlterColumnType;
    // ALTER [IF EXISTS] c MASKED WITH ... / DROP MASKED (Cassandra 5.0)
    if (at_keyword("if") && at_keyword("exists", 1)) stmt.column_if_exists = parse_if_exists(*this);
    ColumnDefinition column;
    column.name = parse_cident();
    if (at_keyword("masked")) {
      stmt.kind = AlterTableStatement::Kind::kMask;
      column.mask = parse_column_mask(*this);
    } else if (accept_keyword("drop")) {
      stmt.kind = AlterTableStatement::Kind::kMask;
      expect_keyword("masked");
    } else {
      if (stmt.column_if_exists) fail_no_viable();
      expect_keyword("type");
      column.type = parse_type();
    }
    stmt.added.push_back(std::move(column));
  } else if (accept_keyword("add")) {
    stmt.kind = AlterTableStatement::Kind::kAdd;
    stmt.column_if_not_exists = parse_if_not_exists(*this);
    auto column = [&]() {
      ColumnDefinition c;
      c.name = parse_ident();
      c.type = parse_type();
      c.is_static = accept_keyword("static");
      if (at_keyword("masked")) c.mask = parse_column_mask(*this);
      stmt.added.push_back(std::move(c));
    };
    if (accept_symbol("(")) {
      column();
      while (accept_symbol(",")) column();
      expect_symbol(")");
    } else {
      column();
    }
  } else if (accept_keyword("drop")) {
    stmt.kind = AlterTableStatement::Kind::kDrop;
    stmt.column_if_exists = parse_if_exists(*this);
    if (accept_symbol("(")) {
      stmt.dropped.push_back(parse_ident());
      while (accept_symbol(",")) stmt.dropped.push_back(parse_ident());
      expect_symbol(")");
    } else {
      stmt.dropped.push_back(parse_ident());
    }
    if (accept_keyword("using")) {
      expect_keyword("timestamp");
      if (peek().kind != TokenKind::kInteger) fail_mismatch("INTEGER");
      stmt.drop_timestamp = parse_long(advance());
    }
  } else if (accept_keyword("rename")) {
    stmt.kind = AlterTableStatement::Kind::kRename;
    stmt.column_if_exists = parse_if_exists(*this);
    do {
      std::string from = parse_ident();
      expect_keyword("to");
      stmt.renames.emplace_back(std::move(from), parse_ident());
    } while (accept_keyword("and"));
  } else if (accept_keyword("with")) {
    stmt.kind = AlterTableStatement::Kind::kWith;
    stmt.properties.properties = parse_properties();
  } else {
    fail_no_viable();
  }
  return stmt;
}

AlterTypeStatement Parser::parse_alter_type() {
  AlterTypeStatement stmt;
  expect_keyword("type");
  stmt.if_exists = parse_if_exists(*this);
  stmt.type = parse_user_type_name();
  if (accept_keyword("alter")) {
    stmt.kind = AlterTypeStatement::Kind::kAlterFieldType;
    std::string field = parse_ident();
    expect_keyword("type");
    stmt.added.emplace_back(std::move(field), parse_type());
  } else if (accept_keyword("add")) {
    stmt.kind = AlterTypeStatement::Kind::kAdd;
    stmt.field_if_not_exists = parse_if_not_exists(*this);
    std::string field = parse_ident();
    stmt.added.emplace_back(std::move(field), parse_type());
  } else if (accept_keyword("rename")) {
    stmt.kind = AlterTypeStatement::Kind::kRename;
    stmt.field_if_exists = parse_if_exists(*this);
    do {
      std::string from = parse_ident();
      expect_keyword("to");
      stmt.renames.emplace_back(std::move(from), parse_ident());
    } while (accept_keyword("and"));
  } else {
    fail_no_viable();
  }
  return stmt;
}

// ---- DROP ------------------------------------------------------------------------------------

Statement Parser::parse_drop() {
  expect_keyword("drop");
  if (accept_keyword("keyspace")) {
    DropKeyspaceStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.keyspace = parse_keyspace_name();
    return stmt;
  }
  if (accept_keyword("table")) {
    DropTableStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.table = parse_qualified_name();
    return stmt;
  }
  if (accept_keyword("index")) {
    DropIndexStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.index = parse_qualified_name("index");
    return stmt;
  }
  if (accept_keyword("type")) {
    DropTypeStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.type = parse_user_type_name();
    return stmt;
  }
  if (accept_keyword("materialized")) {
    expect_keyword("view");
    DropViewStatement stmt;
    stmt.if_exists = parse_if_exists(*this);
    stmt.view = parse_qualified_name();
    return stmt;
  }
  fail_no_viable();
}

// ---- DESCRIBE --------------------------------------------------------------------------------

DescribeStatement Parser::parse_describe() {
  DescribeStatement stmt;
  if (!accept_keyword("describe")) expect_keyword("desc");
  using Kind = DescribeStatement::Kind;
  if (at_keyword("cluster") || at_keyword("functions") || at_keyword("aggregates") ||
      at_keyword("function") || at_keyword("aggregate"))
    throw Status::invalid_argument(
        fmt::format("DESCRIBE {} is not supported", to_lower(peek().text)));
  if (at_keyword("full") || (at_keyword("schema") && !at_symbol(".", 1))) {
    stmt.full = accept_keyword("full");
    // "schema" lexes as a synonym of KEYSPACE; here it names the whole schema
    if (!(peek().kind == TokenKind::kIdent && to_lower(peek().text) == "schema"))
      fail_mismatch("K_SCHEMA");
    advance();
    stmt.kind = Kind::kSchema;
  } else if (accept_keyword("keyspaces")) {
    stmt.kind = Kind::kKeyspaces;
  } else if (at_keyword("only") || at_keyword("keyspace")) {
    stmt.only = accept_keyword("only");
    expect_keyword("keyspace");
    stmt.kind = Kind::kKeyspace;
    if (at_ident()) stmt.name.name = parse_keyspace_name();
  } else if (accept_keyword("tables")) {
    stmt.kind = Kind::kTables;
  } else if (accept_keyword("table")) {
    stmt.kind = Kind::kTable;
    stmt.name = parse_qualified_name();
  } else if (accept_keyword("index")) {
    stmt.kind = Kind::kIndex;
    stmt.name = parse_qualified_name("index");
  } else if (accept_keyword("materialized")) {
    expect_keyword("view");
    stmt.kind = Kind::kView;
    stmt.name = parse_qualified_name();
  } else if (accept_keyword("types")) {
    stmt.kind = Kind::kTypes;
  } else if (accept_keyword("type")) {
    stmt.kind = Kind::kType;
    stmt.name = parse_user_type_name();
  } else {
    stmt.kind = Kind::kName;
    stmt.name = parse_qualified_name();
  }
  if (accept_keyword("with")) expect_keyword("internals");
  return stmt;
}

}  // namespace cassette::cql::parser_internal
