// The WITH options of CREATE/ALTER KEYSPACE and CREATE/ALTER TABLE: which are known, what values
// they take, and how Cassandra 4.1 validates and normalizes them (TableAttributes, TableParams,
// KeyspaceAttributes, ReplicationParams). Also the table options as DESCRIBE prints them.
//
//   schema::TableParams params = default_table_params();
//   CASSETTE_RETURN_IF_ERROR(apply_table_properties(statement.properties.properties, &params));
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/cql/ast.h"
#include "engine/schema/schema.h"
#include "engine/util/status.h"

namespace cassette::cql {

using PropertyList = std::vector<std::pair<std::string, PropertyValue>>;

// The options of a new table before WITH is applied.
schema::TableParams default_table_params();

// Applies the WITH options of CREATE TABLE or ALTER TABLE ... WITH to `params`, with Cassandra's
// checks and messages: "Unknown property 'foo'" (SyntaxError), "default_time_to_live must be
// greater than or equal to 0 (got -1)" (Configuration), ... Unknown sub-options of maps are kept.
// Leaves `params` untouched on error.
Status apply_table_properties(const PropertyList& properties, schema::TableParams* params);

// Whether `properties` names `name`.
bool has_property(const PropertyList& properties, std::string_view name);

// The table's options, each as "name = value", in the order DESCRIBE prints them.
std::vector<std::string> describe_table_options(const schema::TableParams& params);

// CREATE/ALTER KEYSPACE options.
struct KeyspaceProperties {
  std::optional<std::map<std::string, std::string>> replication;  // as written
  std::optional<bool> durable_writes;
};
Result<KeyspaceProperties> parse_keyspace_properties(const PropertyList& properties);

// Checks a replication map for `keyspace` and returns it normalized: the class expanded to its
// full name ("SimpleStrategy" -> "org.apache.cassandra.locator.SimpleStrategy").
Result<std::map<std::string, std::string>> validate_replication(
    const std::string& keyspace, const std::map<std::string, std::string>& replication);

// A map as Cassandra prints one in CQL: {'a': '1', 'b': 'x'} (keys sorted, quotes doubled).
std::string format_option_map(const std::map<std::string, std::string>& map);
// 'text' with quotes doubled.
std::string quote_string(std::string_view text);

}  // namespace cassette::cql
