// Reads that see their own transaction's writes (api_write_log.h). The engine's read path
// already merges an overlay memtable into a snapshot (storage::Snapshot::overlay, as the SQLite
// extension uses it): each store the transaction wrote to gets a storage::Overlay (a private
// memtable, engine/storage/overlay.h) holding the fold of the visible part of the write log —
// the very rows the commit would write (add_row over the same WriteFold), at provisional
// timestamps just above the clock.
//
// The overlay grows as the log does: entries added since it was last brought up to date are
// folded, and the rows they wrote go into the memtable at a new sequence number (snapshots
// handed out earlier, pinned to older sequences, do not see them). A row written again (an
// UPDATE of a pending row) goes in again at a higher timestamp, its new folded state shadowing
// the old. A TRUNCATE that drops pending rows or a ROLLBACK TO that drops folded entries cannot
// be taken back out of a memtable: then the whole fold goes into a fresh one (scans still open
// keep the old one), as it does when shadowed versions outnumber the rows.
//
// TRUNCATE: a table truncated by the visible writes is read from a snapshot whose committed
// sources (memtables and SSTables) are left out, so only the overlay's rows of that table —
// those written after the TRUNCATE, since the fold forgets the ones before it — remain. That is
// what the commit makes of it (it truncates the table, then writes those rows).
#include <algorithm>
#include <unordered_set>

#include "engine/storage/overlay.h"
#include "ext/postgres/api_write_log.h"

namespace cassette::pg {

namespace {

struct Overlay {
  explicit Overlay(const storage::Store* store) : rows(&store->clock()) {}
  WriteFold fold;
  size_t entries = 0;  // the fold holds the store's entries of the log's first `entries`
  storage::Overlay rows;
};

std::map<const storage::Store*, Overlay>& overlays() {
  static std::map<const storage::Store*, Overlay> map;
  return map;
}

// Adds `rows` to the overlay's memtable at a new sequence number.
Status add_rows(Overlay& o, const storage::Store& store, const storage::Snapshot& committed,
                const std::vector<const PendingRow*>& rows) {
  const int64_t now_micros = store.clock().now_micros();
  // What operations that need the current row read (setting a non-frozen collection deletes the
  // elements it does not keep): the committed row with the overlay so far on top, so that a
  // rewritten row's new state also deletes its older state's elements.
  std::shared_ptr<const storage::Snapshot> current_view = o.rows.on(committed);
  std::shared_ptr<const storage::Snapshot> empty;  // the view of truncated tables, made when needed
  storage::WriteBatch batch;
  for (const PendingRow* p : rows) {
    const storage::Snapshot* current = current_view.get();
    if (o.fold.is_truncated(p->def->table_id)) {
      if (empty == nullptr) empty = o.rows.on(committed, /*drop_committed=*/true);
      current = empty.get();
    }
    CASSETTE_RETURN_IF_ERROR(
        add_row(*p, write_parameters(*p->def, now_micros), store, *current, batch));
  }
  return o.rows.add(batch);
}

// Brings the overlay of `store` up to the log's first `visible` entries.
Status extend(Overlay& o, const storage::Store& store, const storage::Snapshot& committed,
              size_t visible) {
  const std::vector<WriteEntry>& log = write_log();
  if (visible < o.entries) {  // an older statement's view: start over
    o.fold = WriteFold();
    o.entries = 0;
    o.rows.clear();
  }
  if (visible == o.entries) return Status::ok();
  std::vector<const PendingRow*> added, rewritten;
  std::unordered_set<const PendingRow*> added_set, rewritten_set;
  bool rebuild = !o.rows.started();
  auto touched = [&](const PendingRow& row, bool is_new) {
    if (is_new) {
      added.push_back(&row);
      added_set.insert(&row);
    } else if (added_set.count(&row) == 0 && rewritten_set.insert(&row).second) {
      rewritten.push_back(
          &row);  // in the memtable already (a row first written in this step is not)
    }
  };
  for (size_t i = o.entries; i < visible; ++i) {
    const WriteEntry& e = log[i];
    if (e.table->store.get() != &store) continue;
    rebuild |= o.fold.add(e, touched);  // a TRUNCATE that dropped rows: they must go
  }
  o.entries = visible;
  if (!rebuild && !rewritten.empty()) {
    // A rewritten row's new state goes in at a higher timestamp, where it shadows the old one:
    // each state the fold reaches covers the ones before it (its cells are a superset, or a
    // DELETE came between and it is a row deletion or writes every column), except a deleted
    // row updated without being re-inserted, whose older row marker would stay; and once the
    // memtable holds mostly shadowed versions, a fresh one is cheaper to read.
    for (const PendingRow* p : rewritten) rebuild |= p->deleted && !p->live && !p->sets.empty();
    rebuild |= o.rows.entry_count() > 2 * o.fold.rows().size() + 64;
    o.rows.advance_timestamp();
    added.insert(added.end(), rewritten.begin(), rewritten.end());
  }
  if (rebuild) {
    o.rows.reset();
    added.clear();
    for (const auto& [key, p] : o.fold.rows()) added.push_back(&p);
  }
  return add_rows(o, store, committed, added);
}

}  // namespace

Result<std::shared_ptr<const storage::Snapshot>> foreign_writes_view(
    storage::Store* store, std::optional<storage::TableId> table, uint32_t command) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> committed, store->snapshot());
  const std::vector<WriteEntry>& log = write_log();
  // Commands never decrease along the log: the visible entries are a prefix.
  const size_t visible = static_cast<size_t>(
      std::partition_point(log.begin(), log.end(),
                           [&](const WriteEntry& e) { return e.command < command; }) -
      log.begin());
  if (visible == 0) return committed;
  Overlay& o = overlays().try_emplace(store, store).first->second;
  Status status = extend(o, *store, *committed, visible);
  if (!status.is_ok()) {
    overlays().erase(store);  // half-built: the next read starts over
    return status;
  }
  const bool truncated = table.has_value() && o.fold.is_truncated(*table);
  if (!o.rows.started() && !truncated) return committed;
  return o.rows.on(*committed, /*drop_committed=*/truncated);
}

Result<std::shared_ptr<const storage::Snapshot>> read_snapshot(cas_table* table, uint32_t command) {
  CASSETTE_ASSIGN_OR_RETURN(std::shared_ptr<const storage::Snapshot> view,
                            foreign_writes_view(table->store.get(), table->def->table_id, command));
  txn::Transaction* cql_writes = find_cql_transaction(table->store.get());
  if (cql_writes == nullptr || cql_writes->empty()) return view;
  return cql_writes->with_overlay(std::move(view));
}

void overlay_log_truncated(size_t size) {
  std::erase_if(overlays(), [&](const auto& entry) { return entry.second.entries > size; });
}

void reset_overlays() {
  overlays().clear();
}

}  // namespace cassette::pg
