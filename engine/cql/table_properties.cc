// WITH options of keyspaces and tables, validated and normalized as Cassandra 4.1 does
// (see table_properties.h).
#include "engine/cql/table_properties.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

namespace cassette::cql {

namespace {

constexpr int64_t kMaxTtl = 630'720'000;  // 20 years, Cassandra's Attributes.MAX_TTL

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Cassandra's PropertyDefinitions.getSimple: the option must not be a map.
Result<std::string> simple_value(const std::string& name, const PropertyValue& value) {
  if (value.is_map) {
    return Status::syntax_error(
        fmt::format("Invalid value for property '{}'. It should be a string", name));
  }
  return value.text;
}

Result<std::map<std::string, std::string>> map_value(const std::string& name,
                                                     const PropertyValue& value) {
  if (!value.is_map) {
    return Status::syntax_error(
        fmt::format("Invalid value for property '{}'. It should be a map.", name));
  }
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : value.map) out[k] = v;
  return out;
}

// Java's Integer.valueOf: an optional sign and decimal digits, within int32.
std::optional<int64_t> parse_java_int(std::string_view text) {
  if (text.empty()) return std::nullopt;
  size_t start = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (start == text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = start; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    value = value * 10 + (text[i] - '0');
    if (value > (int64_t{1} << 31)) return std::nullopt;
  }
  if (text[0] == '-') value = -value;
  if (value > INT32_MAX || value < INT32_MIN) return std::nullopt;
  return value;
}

Result<int64_t> int_value(const std::string& name, const PropertyValue& value) {
  CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
  std::optional<int64_t> parsed = parse_java_int(text);
  if (!parsed) {
    return Status::syntax_error(fmt::format("Invalid integer value {} for '{}'", text, name));
  }
  return *parsed;
}

Result<double> double_value(const std::string& name, const PropertyValue& value) {
  CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
  double parsed = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, parsed);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::syntax_error(fmt::format("Invalid double value {} for '{}'", text, name));
  }
  return parsed;
}

// A double as Java's Double.toString prints it (enough for option values: 0.01, 1.0, 0.1).
std::string java_double(double value) {
  std::string out = fmt::format("{}", value);
  if (out.find_first_of(".eEn") == std::string::npos) out += ".0";
  return out;
}

bool java_boolean(std::string_view text) {
  std::string l = lower(text);
  return l == "true" || l == "1" || l == "yes";
}

std::string expand_class(std::string_view name, std::string_view package) {
  if (name.find('.') != std::string_view::npos) return std::string(name);
  return fmt::format("{}{}", package, name);
}

const std::map<std::string, std::string>& default_caching() {
  static const auto& kCaching = *new const std::map<std::string, std::string>{
      {"keys", "ALL"}, {"rows_per_partition", "NONE"}};
  return kCaching;
}

std::map<std::string, std::string> default_compression() {
  return {{"chunk_length_in_kb", "16"},
          {"class", "org.apache.cassandra.io.compress.LZ4Compressor"}};
}

std::map<std::string, std::string> default_compaction() {
  return {{"class", "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy"},
          {"max_threshold", "32"},
          {"min_threshold", "4"}};
}

// CompressionParams.fromMap, its checks in its order, and asMap's form of the result.
Result<std::map<std::string, std::string>> normalize_compression(
    std::map<std::string, std::string> options) {
  // `compression = {}` turns compression off (CompressionParams.fromMap asks for a class only
  // of a non-empty map).
  if (options.empty()) return std::map<std::string, std::string>{{"enabled", "false"}};
  auto enabled = options.find("enabled");
  const bool is_enabled = enabled == options.end() || lower(enabled->second) == "true";
  if (is_enabled && !options.contains("class") && !options.contains("sstable_compression")) {
    return Status::configuration("Missing sub-option 'class' for the 'compression' option.");
  }
  if (enabled != options.end()) options.erase(enabled);
  if (!is_enabled) {
    if (!options.empty()) {
      return Status::configuration(
          "If the 'enabled' option is set to false no other options must be specified");
    }
    return std::map<std::string, std::string>{{"enabled", "false"}};
  }
  // The pre-3.0 spelling of the sub-options.
  if (auto it = options.find("sstable_compression"); it != options.end()) {
    if (options.contains("class")) {
      return Status::configuration(
          "The 'sstable_compression' option must not be used if the compression algorithm is "
          "already specified by the 'class' option");
    }
    if (it->second.empty()) return std::map<std::string, std::string>{{"enabled", "false"}};
    options["class"] = it->second;
    options.erase(it);
  } else if (options["class"].empty()) {
    return Status::configuration(
        "The 'class' option must not be empty. To disable compression use 'enabled' : false");
  }
  if (auto it = options.find("chunk_length_kb"); it != options.end()) {
    if (options.contains("chunk_length_in_kb")) {
      return Status::configuration(
          "The 'chunk_length_kb' option must not be used if the chunk length is already "
          "specified by the 'chunk_length_in_kb' option");
    }
    options["chunk_length_in_kb"] = it->second;
    options.erase(it);
  }
  auto cls = options.find("class");
  cls->second = expand_class(cls->second, "org.apache.cassandra.io.compress.");
  // The compressors Cassandra 4.1 ships (CompressionParams fails to load any other class).
  static const auto& kCompressors =
      *new const std::set<std::string>{"org.apache.cassandra.io.compress.LZ4Compressor",
                                       "org.apache.cassandra.io.compress.SnappyCompressor",
                                       "org.apache.cassandra.io.compress.DeflateCompressor",
                                       "org.apache.cassandra.io.compress.ZstdCompressor",
                                       "org.apache.cassandra.io.compress.NoopCompressor"};
  if (!kCompressors.contains(cls->second)) {
    return Status::configuration(
        fmt::format("Could not create Compression for type {}", cls->second));
  }
  if (auto it = options.find("chunk_length_in_kb"); it != options.end()) {
    std::optional<int64_t> kb = parse_java_int(it->second);
    if (!kb || *kb <= 0) {
      return Status::configuration(fmt::format("Invalid negative or null chunk_length_in_kb"));
    }
    if ((*kb & (*kb - 1)) != 0) {
      return Status::configuration(fmt::format("chunk_length_in_kb must be a power of 2"));
    }
  } else {
    options["chunk_length_in_kb"] = "16";
  }
  // min_compress_ratio: 0 (the default, not shown) or at least 1, shown as a Java double.
  if (auto it = options.find("min_compress_ratio"); it != options.end()) {
    double ratio = 0;
    const char* end = it->second.data() + it->second.size();
    auto [ptr, ec] = std::from_chars(it->second.data(), end, ratio);
    if (it->second.empty() || ec != std::errc() || ptr != end) {
      return Status::configuration(
          fmt::format("Invalid value for min_compress_ratio: {}", it->second));
    }
    if (ratio < 0) return Status::configuration("Invalid negative min_compress_ratio");
    if (ratio > 0 && ratio < 1) {
      return Status::configuration(
          "min_compress_ratio can either be 0 or greater than or equal to 1");
    }
    if (ratio == 0) {
      options.erase(it);
    } else {
      it->second = java_double(ratio);
    }
  }
  if (auto it = options.find("compression_level"); it != options.end()) {
    std::optional<int64_t> level = parse_java_int(it->second);
    if (!level || *level < -131072 || *level > 22) {
      return Status::configuration(fmt::format(
          "compression_level must be an integer between -131072 and 22 (got {})", it->second));
    }
  }
  return options;
}

Result<std::map<std::string, std::string>> normalize_compaction(
    std::map<std::string, std::string> options) {
  auto cls = options.find("class");
  if (cls != options.end()) {
    cls->second = expand_class(cls->second, "org.apache.cassandra.db.compaction.");
  } else {
    options["class"] = "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy";
  }
  // The strategies Cassandra 4.1 ships (FBUtilities.classForName fails on any other class).
  static const auto& kStrategies = *new const std::set<std::string>{
      "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
      "org.apache.cassandra.db.compaction.LeveledCompactionStrategy",
      "org.apache.cassandra.db.compaction.TimeWindowCompactionStrategy"};
  if (!kStrategies.contains(options["class"])) {
    return Status::configuration(
        fmt::format("Unable to find compaction strategy class '{}'", options["class"]));
  }
  options.try_emplace("max_threshold", "32");
  options.try_emplace("min_threshold", "4");
  return options;
}

const std::set<std::string>& known_table_options() {
  static const auto& kKnown = *new const std::set<std::string>{"additional_write_policy",
                                                               "bloom_filter_fp_chance",
                                                               "caching",
                                                               "cdc",
                                                               "comment",
                                                               "compaction",
                                                               "compression",
                                                               "crc_check_chance",
                                                               "default_time_to_live",
                                                               "extensions",
                                                               "gc_grace_seconds",
                                                               "id",
                                                               "max_index_interval",
                                                               "memtable",
                                                               "memtable_flush_period_in_ms",
                                                               "min_index_interval",
                                                               "read_repair",
                                                               "speculative_retry",
                                                               "allow_auto_snapshot",
                                                               "incremental_backups"};
  return kKnown;
}

std::optional<std::string> other(const schema::TableParams& params, const std::string& name) {
  auto it = params.other.find(name);
  if (it == params.other.end()) return std::nullopt;
  return it->second;
}

int64_t other_int(const schema::TableParams& params, const std::string& name, int64_t fallback) {
  std::optional<std::string> v = other(params, name);
  if (!v) return fallback;
  return parse_java_int(*v).value_or(fallback);
}

double other_double(const schema::TableParams& params, const std::string& name, double fallback) {
  std::optional<std::string> v = other(params, name);
  if (!v) return fallback;
  double parsed = fallback;
  std::from_chars(v->data(), v->data() + v->size(), parsed);
  return parsed;
}

// TableParams.validate: the range checks, on the options after the change.
Status validate_params(const schema::TableParams& params) {
  double bloom = other_double(params, "bloom_filter_fp_chance", 0.01);
  constexpr double kMinBloom = 6.71e-05;  // BloomCalculations.minSupportedBloomFilterFpChance()
  if (bloom <= kMinBloom || bloom > 1) {
    return Status::configuration(fmt::format(
        "bloom_filter_fp_chance must be larger than {} and less than or equal to 1.0 (got {})",
        "6.710886400000001E-5", java_double(bloom)));
  }
  double crc = other_double(params, "crc_check_chance", 1.0);
  if (crc < 0 || crc > 1.0) {
    return Status::configuration(fmt::format(
        "crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 "
        "(got {})",
        java_double(crc)));
  }
  if (params.default_time_to_live < 0) {
    return Status::configuration(
        fmt::format("default_time_to_live must be greater than or equal to 0 (got {})",
                    params.default_time_to_live));
  }
  if (params.default_time_to_live > kMaxTtl) {
    return Status::configuration(
        fmt::format("default_time_to_live must be less than or equal to {} (got {})", kMaxTtl,
                    params.default_time_to_live));
  }
  if (params.gc_grace_seconds < 0) {
    return Status::configuration(fmt::format(
        "gc_grace_seconds must be greater than or equal to 0 (got {})", params.gc_grace_seconds));
  }
  int64_t min_interval = other_int(params, "min_index_interval", 128);
  int64_t max_interval = other_int(params, "max_index_interval", 2048);
  if (min_interval < 1) {
    return Status::configuration(fmt::format(
        "min_index_interval must be greater than or equal to 1 (got {})", min_interval));
  }
  if (max_interval < min_interval) {
    return Status::configuration(fmt::format(
        "max_index_interval must be greater than or equal to min_index_interval ({}) (got {})",
        min_interval, max_interval));
  }
  int64_t flush_period = other_int(params, "memtable_flush_period_in_ms", 0);
  if (flush_period < 0) {
    return Status::configuration(fmt::format(
        "memtable_flush_period_in_ms must be greater than or equal to 0 (got {})", flush_period));
  }
  return Status::ok();
}

}  // namespace

std::string quote_string(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  out += '\'';
  return out;
}

std::string format_option_map(const std::map<std::string, std::string>& map) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : map) {
    if (!first) out += ", ";
    first = false;
    out += quote_string(key);
    out += ": ";
    out += quote_string(value);
  }
  out += "}";
  return out;
}

schema::TableParams default_table_params() {
  schema::TableParams params;
  params.compression = default_compression();
  return params;
}

bool has_property(const PropertyList& properties, std::string_view name) {
  return std::any_of(properties.begin(), properties.end(),
                     [&](const auto& p) { return p.first == name; });
}

Status apply_table_properties(const PropertyList& properties, schema::TableParams* params) {
  std::set<std::string> seen;
  for (const auto& [name, value] : properties) {
    if (!seen.insert(name).second) {
      return Status::syntax_error(fmt::format("Multiple definition for property '{}'", name));
    }
  }
  for (const auto& [name, value] : properties) {
    if (!known_table_options().contains(name)) {
      return Status::syntax_error(fmt::format("Unknown property '{}'", name));
    }
  }
  schema::TableParams next = *params;
  for (const auto& [name, value] : properties) {
    if (name == "id") {
      CASSETTE_ASSIGN_OR_RETURN(std::string id, simple_value(name, value));
      (void)id;  // the statement decides what an id means (CREATE keeps it, ALTER rejects it)
    } else if (name == "default_time_to_live") {
      CASSETTE_ASSIGN_OR_RETURN(next.default_time_to_live, int_value(name, value));
    } else if (name == "gc_grace_seconds") {
      CASSETTE_ASSIGN_OR_RETURN(next.gc_grace_seconds, int_value(name, value));
    } else if (name == "comment") {
      CASSETTE_ASSIGN_OR_RETURN(next.comment, simple_value(name, value));
    } else if (name == "compression") {
      CASSETTE_ASSIGN_OR_RETURN(auto options, map_value(name, value));
      CASSETTE_ASSIGN_OR_RETURN(next.compression, normalize_compression(std::move(options)));
    } else if (name == "compaction") {
      CASSETTE_ASSIGN_OR_RETURN(auto options, map_value(name, value));
      if (!options.contains("class")) {
        return Status::configuration("Missing sub-option 'class' for the 'compaction' option.");
      }
      CASSETTE_ASSIGN_OR_RETURN(auto compaction, normalize_compaction(std::move(options)));
      next.other[name] = format_option_map(compaction);
    } else if (name == "caching") {
      CASSETTE_ASSIGN_OR_RETURN(auto options, map_value(name, value));
      std::map<std::string, std::string> caching = default_caching();
      for (auto& [k, v] : options) {
        if (k == "keys") {
          std::string u = upper(v);
          if (u != "ALL" && u != "NONE") {
            return Status::configuration(fmt::format(
                "Invalid value '{}' for caching sub-option 'keys': only 'ALL' and 'NONE' are "
                "accepted",
                v));
          }
          caching[k] = u;
        } else if (k == "rows_per_partition") {
          std::string u = upper(v);
          if (u != "ALL" && u != "NONE" && !parse_java_int(v)) {
            return Status::configuration(fmt::format(
                "Invalid value '{}' for caching sub-option 'rows_per_partition': only 'ALL', "
                "'NONE' or a positive integer are accepted",
                v));
          }
          caching[k] = parse_java_int(v) ? v : u;
        } else {
          return Status::configuration(fmt::format(
              "Invalid caching sub-options {}: only 'keys' and 'rows_per_partition' are allowed",
              format_option_map(options)));
        }
      }
      next.other[name] = format_option_map(caching);
    } else if (name == "extensions") {
      CASSETTE_ASSIGN_OR_RETURN(auto options, map_value(name, value));
      next.other[name] = format_option_map(options);
    } else if (name == "bloom_filter_fp_chance" || name == "crc_check_chance") {
      CASSETTE_ASSIGN_OR_RETURN(double d, double_value(name, value));
      next.other[name] = java_double(d);
    } else if (name == "max_index_interval" || name == "min_index_interval" ||
               name == "memtable_flush_period_in_ms") {
      CASSETTE_ASSIGN_OR_RETURN(int64_t i, int_value(name, value));
      next.other[name] = std::to_string(i);
    } else if (name == "cdc" || name == "allow_auto_snapshot" || name == "incremental_backups") {
      CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
      next.other[name] = java_boolean(text) ? "true" : "false";
    } else if (name == "read_repair") {
      CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
      std::string u = upper(text);
      if (u != "BLOCKING" && u != "NONE") {
        return Status::configuration(
            fmt::format("Invalid read_repair value '{}'; must be one of BLOCKING, NONE", text));
      }
      next.other[name] = quote_string(u);
    } else {  // additional_write_policy, speculative_retry, memtable: strings
      CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
      next.other[name] = quote_string(text);
    }
  }
  CASSETTE_RETURN_IF_ERROR(validate_params(next));
  *params = std::move(next);
  return Status::ok();
}

std::vector<std::string> describe_table_options(const schema::TableParams& params) {
  auto option = [&](const std::string& name, std::string fallback) {
    std::optional<std::string> given = other(params, name);
    return fmt::format("{} = {}", name, given ? *given : fallback);
  };
  std::vector<std::string> out;
  out.push_back(option("additional_write_policy", "'99p'"));
  out.push_back(option("allow_auto_snapshot", "true"));  // printed always since 5.0
  out.push_back(option("bloom_filter_fp_chance", "0.01"));
  out.push_back(option("caching", format_option_map(default_caching())));
  out.push_back(option("cdc", "false"));
  out.push_back(fmt::format("comment = {}", quote_string(params.comment)));
  out.push_back(option("compaction", format_option_map(default_compaction())));
  out.push_back(fmt::format(
      "compression = {}",
      format_option_map(params.compression.empty() ? default_compression() : params.compression)));
  out.push_back(option("memtable", "'default'"));
  out.push_back(option("crc_check_chance", "1.0"));
  out.push_back(fmt::format("default_time_to_live = {}", params.default_time_to_live));
  out.push_back(option("extensions", "{}"));
  out.push_back(fmt::format("gc_grace_seconds = {}", params.gc_grace_seconds));
  out.push_back(option("incremental_backups", "true"));
  out.push_back(option("max_index_interval", "2048"));
  out.push_back(option("memtable_flush_period_in_ms", "0"));
  out.push_back(option("min_index_interval", "128"));
  out.push_back(option("read_repair", "'BLOCKING'"));
  out.push_back(option("speculative_retry", "'99p'"));
  return out;
}

Result<KeyspaceProperties> parse_keyspace_properties(const PropertyList& properties) {
  KeyspaceProperties out;
  std::set<std::string> seen;
  for (const auto& [name, value] : properties) {
    if (!seen.insert(name).second) {
      return Status::syntax_error(fmt::format("Multiple definition for property '{}'", name));
    }
  }
  for (const auto& [name, value] : properties) {
    if (name != "replication" && name != "durable_writes") {
      return Status::syntax_error(fmt::format("Unknown property '{}'", name));
    }
  }
  for (const auto& [name, value] : properties) {
    if (name == "replication") {
      CASSETTE_ASSIGN_OR_RETURN(auto map, map_value(name, value));
      if (!map.empty() && !map.contains("class")) {
        return Status::configuration("Missing replication strategy class");
      }
      out.replication = std::move(map);
    } else {
      CASSETTE_ASSIGN_OR_RETURN(std::string text, simple_value(name, value));
      out.durable_writes = java_boolean(text);
    }
  }
  return out;
}

namespace {

Status validate_replication_factor(const std::string& value) {
  std::string_view text = value;
  // Transient replication ("3/1") is disabled by default in Cassandra.
  if (text.find('/') != std::string_view::npos) {
    return Status::configuration(
        "Transient replication is disabled. Enable in cassandra.yaml to use.");
  }
  std::optional<int64_t> rf = parse_java_int(text);
  if (!rf) return Status::configuration(fmt::format("For input string: \"{}\"", value));
  if (*rf < 0) {
    return Status::configuration(
        fmt::format("Replication factor must be non-negative, found {}", *rf));
  }
  return Status::ok();
}

}  // namespace

Result<std::map<std::string, std::string>> validate_replication(
    const std::string& keyspace, const std::map<std::string, std::string>& replication) {
  std::map<std::string, std::string> out = replication;
  auto cls = out.find("class");
  if (cls == out.end()) return Status::configuration("Missing replication strategy class");
  cls->second = expand_class(cls->second, "org.apache.cassandra.locator.");
  const std::string& klass = cls->second;
  std::string simple_name = klass.substr(klass.rfind('.') + 1);
  if (klass == "org.apache.cassandra.locator.LocalStrategy") {
    return Status::invalid_argument(
        "Unable to use given strategy class: LocalStrategy is reserved for internal use.");
  }
  if (klass == "org.apache.cassandra.locator.SimpleStrategy") {
    for (const auto& [key, value] : out) {
      if (key != "class" && key != "replication_factor") {
        return Status::configuration(
            fmt::format("Unrecognized strategy option {{{}}} passed to {} for keyspace {}", key,
                        simple_name, keyspace));
      }
    }
    auto rf = out.find("replication_factor");
    if (rf == out.end()) {
      return Status::configuration("SimpleStrategy requires a replication_factor strategy option.");
    }
    CASSETTE_RETURN_IF_ERROR(validate_replication_factor(rf->second));
    return out;
  }
  if (klass == "org.apache.cassandra.locator.NetworkTopologyStrategy") {
    // Any data center name is accepted: a single node has no topology to check it against.
    for (const auto& [key, value] : out) {
      if (key == "class") continue;
      CASSETTE_RETURN_IF_ERROR(validate_replication_factor(value));
    }
    return out;
  }
  return Status::configuration(
      fmt::format("Unable to find replication strategy class '{}'", klass));
}

}  // namespace cassette::cql
