// The payload of one commit-log record: a whole write transaction as the memtable entries it
// adds, plus the timestamp the store assigned. Replaying a record = adding its entries to the
// memtable under one sequence number. Layout in FORMAT.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/storage/encoded_batch.h"
#include "engine/storage/manifest.h"
#include "engine/storage/memtable.h"
#include "engine/util/status.h"

namespace cassette::storage {

class SortedEntrySource;  // sorted_entry_source.h

struct EncodedTransaction {
  std::string payload;
  int64_t min_timestamp = INT64_MAX;  // of everything written (purge decisions)
  size_t entries = 0;
  // Set, with no payload, for a transaction the store commits as SSTables rather than as a
  // record (a large one: store_sstable_commit.cc): its batch, stamped as the files are written.
  const EncodedBatch* sstable_batch = nullptr;
  // Set instead for Store::apply_sorted: its entries, already in order and folded.
  SortedEntrySource* sstable_source = nullptr;
};

// Cassandra's limits on a partition key: not empty, at most 65535 bytes.
Status validate_partition_key(std::string_view partition_key);

// Turns a batch into a record payload: its entries copied, each kAutoTimestamp replaced by
// `assigned_timestamp`. Returns InvalidArgument for a malformed key or value.
Result<EncodedTransaction> encode_transaction(const EncodedBatch& batch,
                                              int64_t assigned_timestamp);

// One partition's share of a record: what Cassandra calls a mutation (the updates to one
// partition key), whose size a store limits (StoreOptions::max_mutation_bytes).
struct PartitionUpdateSize {
  TableId table = 0;
  std::string partition_key;  // serialized (engine/types/partition_key.h)
  size_t bytes = 0;           // of its entries' keys and values in the record
};
// The largest partition update of a record payload (encode_transaction's), or one of 0 bytes
// when the payload does not decode.
PartitionUpdateSize largest_partition_update(std::string_view payload);

using TransactionEntry = Memtable::BatchEntry;
struct DecodedTransaction {
  int64_t assigned_timestamp = 0;
  int64_t min_timestamp = INT64_MAX;
  std::vector<TransactionEntry> entries;  // pointing into the payload
  bool has_partition_metadata = false;    // a partition header or static row among them
};
// Splits a payload into its entries; returns false when it is malformed, so a caller applies a
// record whole or not at all.
bool decode_transaction(std::string_view payload, DecodedTransaction* out);

// Two-phase commit (FORMAT.md, "Prepared transactions"): besides a transaction's record, the log
// holds a prepared transaction (written, not yet decided: readers keep it aside, unapplied) and
// the record that decides it, naming it by the log position where it starts. A commit carries
// the transaction's payload again when the prepared record may be gone from what a reader
// replays (resolved late, or after a flush or TRUNCATE moved past it); empty, the prepared
// record's payload is meant. A transaction too large for a record (a spilled SQL transaction,
// Store::prepare_sorted) is prepared as SSTables written and synced beside the manifest's: its
// prepared record lists them instead of carrying the writes, and its commit is the manifest
// change that installs them, followed by a decision record that carries nothing.
enum class RecordKind : uint8_t {
  kTransaction = 0,  // a transaction's payload, as encode_transaction makes it
  kPrepared = 1,
  kCommitPrepared = 2,
  kAbortPrepared = 3,        // of either kind of prepared record
  kPreparedFiles = 4,        // a prepared transaction whose writes are SSTables it lists
  kCommitPreparedFiles = 5,  // its files were installed by the manifest before this record
};
struct DecidedPosition {  // a LogPosition, without depending on commit_log.h
  uint64_t segment = 0;
  uint64_t offset = 0;
};
struct LogRecord {
  RecordKind kind = RecordKind::kTransaction;
  std::string_view host_tag;      // kPrepared, kPreparedFiles: the host's name for the transaction
  std::vector<TableId> truncate;  // kPrepared, kPreparedFiles: tables emptied when it commits
  DecidedPosition prepared;       // the decisions: the record decided
  std::string_view transaction;   // kTransaction, kPrepared, kCommitPrepared (may be empty)
  int64_t timestamp = 0;          // kPreparedFiles: the transaction's, stamped in its files
  std::vector<ManifestFile> files;  // kPreparedFiles: its SSTables (never empty)
};
std::string encode_prepared_record(std::string_view host_tag, const std::vector<TableId>& truncate,
                                   std::string_view transaction);
std::string encode_prepared_files_record(std::string_view host_tag,
                                         const std::vector<TableId>& truncate, int64_t timestamp,
                                         const std::vector<ManifestFile>& files);
std::string encode_decision_record(RecordKind kind, DecidedPosition prepared,
                                   std::string_view transaction = {});
// Splits a record payload by kind; false when it is malformed. The views point into `payload`.
bool decode_log_record(std::string_view payload, LogRecord* out);

}  // namespace cassette::storage
