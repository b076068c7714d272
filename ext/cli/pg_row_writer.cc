// CqlRowWriter (see pg_row_writer.h): each row becomes the PreparedModification that
// prepare_insert() makes of an INSERT JSON statement (the key values given, the other columns
// `c = value`), and a batch is written the way execute_batch() writes an unconditional batch.
//
// The caller's thread turns each row into its partition update as soon as it is checked (so the
// writing thread only applies the batch); rows whose write must read the current row first
// (overwriting a non-frozen collection) are kept prepared and added under the store's write
// lock, as execute_batch() does.
#include "ext/cli/pg_row_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>
#include <string>
#include <unordered_set>

#include "engine/cql/execution_context.h"
#include "engine/cql/modification_statement.h"
#include "engine/cql/view_maintenance.h"
#include "engine/storage/encoded_batch.h"
#include "engine/storage/mutation_builder.h"
#include "engine/types/murmur3.h"
#include "engine/types/scalar.h"
#include "engine/write/row_encoder.h"

namespace cassette::cli::pg {

struct CqlRowWriter::State {
  cql::Session* session = nullptr;
  std::shared_ptr<const schema::TableDef> table;
  std::vector<const schema::ColumnDef*> columns;
  bool clustering_given = false;
  bool counter_increments = false;
  cql::UsingClause using_clause;  // USING TTL, when given
  cql::ExecutionContext context;  // the schema and "now" of the current batch
  cql::WriteAttributes attributes;

  // Rows encoded straight into `encoded` (nullptr: the general path).
  std::unique_ptr<write::RowEncoder> encoder;
  storage::EncodedBatch encoded;

  // The batch being filled: updates built so far (one per partition, keys in `partitions`),
  // and the rows that must read before they write.
  storage::MutationBuilder built;
  std::unordered_set<std::string> partitions;
  std::vector<cql::PreparedModification> reading_rows;
  std::vector<cql::WriteParameters> reading_params;
  size_t pending = 0;
  size_t pending_value_bytes = 0;  // of the queued rows' values

  std::future<Status> in_flight;  // the batch being written, if any
  size_t in_flight_rows = 0;
  int64_t written = 0;

  // Waits for the batch in flight; counts its rows when it was written.
  Status wait() {
    if (!in_flight.valid()) return Status::ok();
    Status status = in_flight.get();
    if (status.is_ok()) written += static_cast<int64_t>(in_flight_rows);
    in_flight_rows = 0;
    return status;
  }

  Status begin_batch() {
    storage::Store& store = session->store();
    context.store = &store;
    context.catalog = &session->catalog();
    CASSETTE_ASSIGN_OR_RETURN(context.schema, session->catalog().current());
    context.keyspace = table->keyspace;
    context.now_micros = store.clock().now_micros();
    context.functions.now_micros = context.now_micros;
    // USING TTL, or the table's default_time_to_live, as an INSERT gets it.
    CASSETTE_ASSIGN_OR_RETURN(attributes, cql::evaluate_attributes(using_clause, *table, context));
    if (encoder != nullptr) {
      encoder->set_parameters(
          write::RowEncoder::parameters(*table, context.now_micros, attributes.ttl));
    }
    return Status::ok();
  }

  // Adds a checked row's writes to `built`. A row of a partition the batch has not seen gets
  // its own update, appended (MutationBuilder::partition() would search every update so far).
  Status build(const cql::PreparedModification& row, const cql::WriteParameters& params) {
    const storage::Store& store = session->store();
    bool seen = false;
    for (const std::string& key : row.targets.partition_keys) seen = seen || partitions.count(key);
    if (seen) return cql::add_modification(row, params, store, nullptr, built);
    storage::MutationBuilder own;
    CASSETTE_RETURN_IF_ERROR(cql::add_modification(row, params, store, nullptr, own));
    for (storage::PartitionUpdate& update : own.mutable_updates()) {
      partitions.insert(update.partition_key);
      built.mutable_updates().push_back(std::move(update));
    }
    return Status::ok();
  }
};

CqlRowWriter::CqlRowWriter(std::unique_ptr<State> state) : state_(std::move(state)) {}
CqlRowWriter::~CqlRowWriter() {
  if (state_) (void)state_->wait();  // never leave a thread writing behind
}

Result<std::unique_ptr<CqlRowWriter>> CqlRowWriter::open(
    cql::Session& session, std::shared_ptr<const schema::TableDef> table,
    std::vector<const schema::ColumnDef*> columns, RowWriterOptions options) {
  const bool counters = table->is_counter_table() && options.counter_increments;
  if (table->is_counter_table() && !counters) return write::RowEncoder::counter_table_error();
  // A view takes no rows; a base table's views are kept by each batch (write_batch).
  CASSETTE_RETURN_IF_ERROR(cql::check_not_view(*table));
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Schema> schema,
                            session.catalog().current());
  const bool has_views = !schema->views_on(*table).empty();
  // Cassandra's checks of an INSERT's columns (the encoder's); a counter update has the same.
  std::vector<size_t> indexes;
  for (const schema::ColumnDef* c : columns) {
    indexes.push_back(static_cast<size_t>(c - table->columns.data()));
  }
  CASSETTE_ASSIGN_OR_RETURN(
      std::unique_ptr<write::RowEncoder> encoder,
      write::RowEncoder::make(table, std::move(indexes), write::NullPolicy::kTombstone));
  auto state = std::make_unique<State>();
  state->session = &session;
  state->table = std::move(table);
  state->columns = std::move(columns);
  state->counter_increments = counters;
  if (options.ttl && !counters) {  // counter updates take no TTL; cqlsh's COPY gives none
    auto ttl = std::make_shared<cql::Term>();
    ttl->kind = cql::Term::Kind::kConstant;
    ttl->constant_kind = types::ConstantKind::kInteger;
    ttl->text = std::to_string(*options.ttl);
    ttl->source = ttl->text;
    state->using_clause.ttl = std::move(ttl);
  }
  for (const schema::ColumnDef* c : state->columns) {
    state->clustering_given = state->clustering_given || c->kind == schema::ColumnKind::kClustering;
  }
  // Rows that read before they write stay on the general path, which reads under the write
  // lock; so do the rows of a table with views, whose view rows are read there too.
  if (!counters && !encoder->needs_read() && !has_views) state->encoder = std::move(encoder);
  CASSETTE_RETURN_IF_ERROR(state->begin_batch());
  return std::unique_ptr<CqlRowWriter>(new CqlRowWriter(std::move(state)));
}

Status CqlRowWriter::add(std::vector<types::Value>& values) {
  State& s = *state_;
  size_t value_bytes = 0;
  for (const types::Value& value : values) value_bytes += value ? value->size() : 0;
  if (s.encoder != nullptr) {
    write::BatchSink sink(s.encoded, s.table->table_id);
    CASSETTE_RETURN_IF_ERROR(s.encoder->insert(values, sink));
    ++s.pending;
    s.pending_value_bytes += value_bytes;
    return Status::ok();
  }
  cql::PreparedModification row;
  row.type = s.counter_increments ? cql::StatementType::kUpdate : cql::StatementType::kInsert;
  row.table = s.table;
  row.attributes = s.attributes;
  std::vector<cql::Relation> key_relations;
  std::map<std::string, types::Value> key_values;
  for (size_t i = 0; i < s.columns.size(); ++i) {
    const schema::ColumnDef& column = *s.columns[i];
    if (column.is_primary_key()) {
      cql::Relation relation;
      relation.columns = {column.name};
      relation.op = cql::Operator::kEq;
      key_relations.push_back(std::move(relation));
      key_values[column.name] = std::move(values[i]);
      continue;
    }
    cql::ColumnOperation op;
    op.column = &column;
    if (s.counter_increments) {
      // c = c + value; a null (or empty) value adds 0, as cqlsh's COPY FROM sends "0"
      op.kind = cql::ColumnOperation::Kind::kCounterAdd;
      op.counter_delta = values[i] && values[i]->size() == 8 ? types::read_int64(*values[i]) : 0;
    } else {
      op.kind = cql::ColumnOperation::Kind::kSetValue;
      op.value = std::move(values[i]);
    }
    row.operations.push_back(std::move(op));
  }
  bool only_static =
      !s.clustering_given && !row.has_regular_operations() && row.has_static_operations();
  CASSETTE_ASSIGN_OR_RETURN(
      row.targets, cql::resolve_modification_where(*s.table, key_relations, row.type, only_static,
                                                   s.context, &key_values));
  CASSETTE_RETURN_IF_ERROR(cql::validate_modification(row));
  cql::WriteParameters params = cql::write_parameters(row, s.context);
  if (cql::modification_needs_read(row, params)) {
    s.reading_rows.push_back(std::move(row));
    s.reading_params.push_back(params);
  } else {
    CASSETTE_RETURN_IF_ERROR(s.build(row, params));
  }
  ++s.pending;
  s.pending_value_bytes += value_bytes;
  return Status::ok();
}

size_t CqlRowWriter::pending() const {
  return state_->pending;
}

bool CqlRowWriter::batch_full(size_t max_rows) const {
  return state_->pending >= max_rows || state_->pending_value_bytes >= kMaxBatchValueBytes;
}

int64_t CqlRowWriter::written() const {
  return state_->written;
}

namespace {

// One batch as one store write: the updates built, plus the rows that read first, added under
// the write lock through the snapshot it gives, and the view rows they imply (as
// execute_batch() does). `context`: the batch's schema and "now".
Status write_batch(const cql::ExecutionContext& context, storage::MutationBuilder built,
                   const std::vector<cql::PreparedModification>& reading_rows,
                   const std::vector<cql::WriteParameters>& reading_params) {
  storage::Store& store = *context.store;
  if (built.empty() && reading_rows.empty()) return Status::ok();
  if (reading_rows.empty() && !context.schema->has_views()) {
    // In the memtable's order (token, then key), each insert starts where the last one ended
    // and finds its path cached.
    std::vector<std::pair<int64_t, storage::PartitionUpdate*>> order;
    order.reserve(built.updates().size());
    for (storage::PartitionUpdate& update : built.mutable_updates()) {
      order.emplace_back(types::murmur3_token(update.partition_key), &update);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first
                                : a.second->partition_key < b.second->partition_key;
    });
    storage::MutationBuilder sorted;
    sorted.mutable_updates().reserve(order.size());
    for (auto& entry : order) sorted.mutable_updates().push_back(std::move(*entry.second));
    return storage::apply_mutations(store, sorted).status();
  }
  return storage::apply_prepared_mutations(
             store, cql::with_view_mutations(context,
                                             [&](const storage::Snapshot& snapshot,
                                                 storage::MutationBuilder& write) -> Result<bool> {
                                               write = built;
                                               for (size_t i = 0; i < reading_rows.size(); ++i) {
                                                 CASSETTE_RETURN_IF_ERROR(cql::add_modification(
                                                     reading_rows[i], reading_params[i], store,
                                                     &snapshot, write));
                                               }
                                               return true;
                                             }))
      .status();
}

}  // namespace

Status CqlRowWriter::flush() {
  State& s = *state_;
  CASSETTE_RETURN_IF_ERROR(s.wait());
  if (s.pending == 0) return Status::ok();
  s.in_flight_rows = s.pending;
  if (s.encoder != nullptr) {
    s.in_flight = std::async(std::launch::async,
                             [store = &s.session->store(), batch = std::move(s.encoded)]() mutable {
                               CASSETTE_RETURN_IF_ERROR(write::fold_same_rows(batch));
                               return store->apply(batch).status();
                             });
    s.encoded.clear();
    s.pending = 0;
    s.pending_value_bytes = 0;
    return s.begin_batch();
  }
  s.in_flight = std::async(std::launch::async, [context = s.context, built = std::move(s.built),
                                                rows = std::move(s.reading_rows),
                                                params = std::move(s.reading_params)]() mutable {
    return write_batch(context, std::move(built), rows, params);
  });
  s.built.clear();
  s.partitions.clear();
  s.reading_rows.clear();
  s.reading_params.clear();
  s.pending = 0;
  s.pending_value_bytes = 0;
  return s.begin_batch();  // the next batch sees schema changes and gets its own "now"
}

Status CqlRowWriter::finish_in_flight() {
  State& s = *state_;
  s.encoded.clear();
  s.built.clear();
  s.partitions.clear();
  s.reading_rows.clear();
  s.reading_params.clear();
  s.pending = 0;
  s.pending_value_bytes = 0;
  return s.wait();
}

Status CqlRowWriter::finish() {
  CASSETTE_RETURN_IF_ERROR(flush());
  return state_->wait();
}

}  // namespace cassette::cli::pg
