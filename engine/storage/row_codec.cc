#include "engine/storage/row_codec.h"

#include <algorithm>
#include <cstring>

#include "engine/util/coding.h"

namespace cassette::storage {
namespace {

using coding::put_length_prefixed;
using coding::put_signed_varint64;
using coding::put_varint64;

enum RowFlags : uint8_t { kHasLiveness = 1, kExpiringLiveness = 2, kHasDeletion = 4 };

void encode_deletion(const DeletionTime& d, std::string* out) {
  put_signed_varint64(out, d.marked_for_delete_at);
  put_signed_varint64(out, d.local_deletion_time);
}

// The decoders' input: a cursor over the bytes that stays in registers (the read path decodes a
// row per entry it returns, and going through a string_view in memory at every byte shows).
// Same rules as coding.h's get_* functions.
struct Reader {
  const char* p;
  const char* end;

  explicit Reader(std::string_view in) : p(in.data()), end(in.data() + in.size()) {}
  size_t left() const { return static_cast<size_t>(end - p); }
  bool byte(uint8_t* b) {
    if (p == end) return false;
    *b = static_cast<uint8_t>(*p++);
    return true;
  }
  bool varint(uint64_t* v) {
    // Most varints of a row are one byte (column ids, lengths, cell timestamps relative to the
    // row's); the row's own timestamp takes eight. With ten bytes left (the longest varint) no
    // end check is needed: a row decode spent ~200 instructions in a byte loop here before.
    if (p != end && (static_cast<uint8_t>(*p) & 0x80) == 0) {
      *v = static_cast<uint8_t>(*p++);
      return true;
    }
    if (end - p >= 10) {
      // Up to eight bytes (a microsecond timestamp takes eight) read as one little-endian word:
      // the first byte without a continuation bit ends the varint, and the 7-bit groups of the
      // bytes before it are squeezed together in three steps (pairs, quads, the two halves).
      uint64_t w;
      std::memcpy(&w, p, 8);
      if (const uint64_t stops = ~w & 0x8080808080808080ull; stops != 0) {
        const int bytes = (__builtin_ctzll(stops) >> 3) + 1;
        if (bytes < 8) w &= (uint64_t{1} << (8 * bytes)) - 1;
        w = (w & 0x007f007f007f007full) | ((w & 0x7f007f007f007f00ull) >> 1);
        w = (w & 0x00003fff00003fffull) | ((w & 0x3fff00003fff0000ull) >> 2);
        w = (w & 0x000000000fffffffull) | ((w & 0x0fffffff00000000ull) >> 4);
        *v = w;
        p += bytes;
        return true;
      }
      uint64_t result = 0;
      for (int shift = 0; shift <= 63; shift += 7) {
        const uint8_t b = static_cast<uint8_t>(*p++);
        result |= static_cast<uint64_t>(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
          *v = result;
          return true;
        }
      }
      return false;
    }
    uint64_t result = 0;
    for (int shift = 0; shift <= 63 && p != end; shift += 7) {
      const uint8_t b = static_cast<uint8_t>(*p++);
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool svarint(int64_t* v) {
    uint64_t raw;
    if (!varint(&raw)) return false;
    *v = coding::zigzag_decode(raw);
    return true;
  }
  // Passes over a varint (checked as varint() checks it), for cells a read does not record.
  bool skip_varint() {
    if (p != end && (static_cast<uint8_t>(*p) & 0x80) == 0) {
      ++p;
      return true;
    }
    uint64_t ignored;
    return varint(&ignored);
  }
  bool skip_length_prefixed() {
    uint64_t len;
    if (!varint(&len) || len > left()) return false;
    p += len;
    return true;
  }
  bool length_prefixed(std::string_view* bytes) {
    uint64_t len;
    if (!varint(&len) || len > left()) return false;
    *bytes = std::string_view(p, len);
    p += len;
    return true;
  }
};

// The helpers that take a Reader are inlined into the decoders, which keep it in registers.
[[gnu::always_inline]] inline bool decode_deletion(Reader* in, DeletionTime* d) {
  return in->svarint(&d->marked_for_delete_at) && in->svarint(&d->local_deletion_time);
}

// Copies bytes into a reused string (a read decodes each row into the same Row): what fits in
// the old value's length is copied in place, the string cut to the new length (inline), and only
// the part beyond it appended. assign() goes through the general _M_replace (overlap checks),
// ~130 instructions a value where the copy itself is a few; resize() to a longer length first
// would zero-fill what the new value adds. `bytes` never points into `s`.
inline void assign_bytes(std::string* s, std::string_view bytes) {
  const size_t n = bytes.size();
  const size_t have = s->size();
  if (n <= have) {
    if (n != 0) std::memcpy(s->data(), bytes.data(), n);
    s->resize(n);
    return;
  }
  if (have != 0) std::memcpy(s->data(), bytes.data(), have);
  s->append(bytes.data() + have, n - have);
}

// Cell timestamps are stored relative to the row's liveness timestamp (0 when it has none): an
// INSERT writes them equal, so each costs one byte instead of eight. Wrapping arithmetic keeps
// any pair of int64 values exact.
int64_t relative(int64_t ts, int64_t base) {
  return static_cast<int64_t>(static_cast<uint64_t>(ts) - static_cast<uint64_t>(base));
}
int64_t absolute(int64_t delta, int64_t base) {
  return static_cast<int64_t>(static_cast<uint64_t>(delta) + static_cast<uint64_t>(base));
}

void encode_cell(const Cell& c, bool with_path, int64_t base, std::string* out) {
  const std::string_view path = c.path;
  encode_cell_fields(c.flags, c.timestamp, base, c.ttl, c.local_deletion_time,
                     with_path ? &path : nullptr, c.value, out);
}

// `with_value` false: the value is checked and passed over, not copied (ValueColumns).
[[gnu::always_inline]] inline bool decode_cell(Reader* in, bool with_path, int64_t base, Cell* c,
                                               bool with_value = true) {
  if (!in->byte(&c->flags) || c->flags > 7) return false;
  if (!in->svarint(&c->timestamp)) return false;
  c->timestamp = absolute(c->timestamp, base);
  uint64_t ttl = 0;
  if (c->is_expiring() && !in->varint(&ttl)) return false;
  c->ttl = static_cast<int64_t>(ttl);
  c->local_deletion_time = kNoDeletionTime;
  if ((c->is_expiring() || c->is_tombstone()) && !in->svarint(&c->local_deletion_time)) {
    return false;
  }
  // (Not cleared first: assign_bytes reuses the capacity the last value left.)
  std::string_view bytes;
  if (with_path) {
    if (!in->length_prefixed(&bytes)) return false;
    assign_bytes(&c->path, bytes);
  } else {
    c->path.clear();
  }
  if (c->is_tombstone()) {
    c->value.clear();
  } else {
    if (!in->length_prefixed(&bytes)) return false;
    if (with_value || c->is_counter()) {
      assign_bytes(&c->value, bytes);
    } else {
      c->value.clear();
    }
  }
  return true;
}

// Walks past a cell as decode_cell reads it, recording nothing (UnreadSkip).
[[gnu::always_inline]] inline bool skip_cell(Reader* in, bool with_path) {
  uint8_t flags;
  if (!in->byte(&flags) || flags > 7 || !in->skip_varint()) return false;
  const bool expiring = (flags & Cell::kExpiring) != 0;
  const bool tombstone = (flags & Cell::kTombstone) != 0;
  if (expiring && !in->skip_varint()) return false;
  if ((expiring || tombstone) && !in->skip_varint()) return false;
  if (with_path && !in->skip_length_prefixed()) return false;
  return tombstone || in->skip_length_prefixed();
}

// Walks past a column's data (after its id and simple/complex byte), recording nothing.
[[gnu::always_inline]] inline bool skip_column(Reader* in, bool complex) {
  if (!complex) return skip_cell(in, false);
  uint64_t ncells;
  if (!in->skip_varint() || !in->skip_varint() || !in->varint(&ncells) || ncells > in->left()) {
    return false;
  }
  for (uint64_t i = 0; i < ncells; ++i) {
    if (!skip_cell(in, true)) return false;
  }
  return true;
}

// A column's data (after its id and simple/complex byte) into `col`.
[[gnu::always_inline]] inline bool decode_column(Reader* in, int64_t base, bool with_value,
                                                 ColumnData* col) {
  if (!col->complex) {
    col->complex_deletion = DeletionTime{};
    if (!col->cells.empty()) col->cells.clear();
    return decode_cell(in, false, base, &col->cell, with_value);
  }
  col->cell = Cell{};
  uint64_t ncells;
  if (!decode_deletion(in, &col->complex_deletion) || !in->varint(&ncells) || ncells > in->left()) {
    return false;
  }
  col->cells.resize(ncells);
  for (Cell& c : col->cells) {
    if (!decode_cell(in, true, base, &c)) return false;
  }
  return true;
}

// A column's id and simple/complex byte.
[[gnu::always_inline]] inline bool decode_column_head(Reader* in, ColumnId* id, bool* complex) {
  uint64_t v;
  uint8_t b;
  if (!in->varint(&v) || v > UINT32_MAX || !in->byte(&b) || b > 1) return false;
  *id = static_cast<ColumnId>(v);
  *complex = b == 1;
  return true;
}

// decode_row's part up to the column count: the row's flags, liveness and deletion into `row`,
// the base of its cells' timestamps.
[[gnu::always_inline]] inline bool decode_row_head(Reader* in, Row* row, int64_t* base,
                                                   uint64_t* ncolumns) {
  row->liveness = LivenessInfo{};
  row->deletion = DeletionTime{};
  uint8_t flags;
  if (!in->byte(&flags) || flags > 7) return false;
  if (flags & kHasLiveness) {
    if (!in->svarint(&row->liveness.timestamp)) return false;
    if (flags & kExpiringLiveness) {
      uint64_t ttl;
      if (!in->varint(&ttl) || !in->svarint(&row->liveness.local_expiration_time)) return false;
      row->liveness.ttl = static_cast<int64_t>(ttl);
    }
  }
  if ((flags & kHasDeletion) && !decode_deletion(in, &row->deletion)) return false;
  *base = (flags & kHasLiveness) ? row->liveness.timestamp : 0;
  return in->varint(ncolumns) && *ncolumns <= in->left();
}

}  // namespace

int64_t encode_row_head(const LivenessInfo& liveness, const DeletionTime& deletion,
                        std::string* out) {
  uint8_t flags = 0;
  if (!liveness.is_empty()) flags |= kHasLiveness;
  if (liveness.is_expiring()) flags |= kExpiringLiveness;
  if (!deletion.is_live()) flags |= kHasDeletion;
  out->push_back(static_cast<char>(flags));
  if (flags & kHasLiveness) {
    put_signed_varint64(out, liveness.timestamp);
    if (flags & kExpiringLiveness) {
      put_varint64(out, static_cast<uint64_t>(liveness.ttl));
      put_signed_varint64(out, liveness.local_expiration_time);
    }
  }
  if (flags & kHasDeletion) encode_deletion(deletion, out);
  return liveness.is_empty() ? 0 : liveness.timestamp;
}

void encode_cell_fields(uint8_t flags, int64_t timestamp, int64_t base, int64_t ttl,
                        int64_t local_deletion_time, const std::string_view* path,
                        std::string_view value, std::string* out) {
  const bool expiring = (flags & Cell::kExpiring) != 0;
  const bool tombstone = (flags & Cell::kTombstone) != 0;
  out->push_back(static_cast<char>(flags));
  put_signed_varint64(out, relative(timestamp, base));
  if (expiring) put_varint64(out, static_cast<uint64_t>(ttl));
  if (expiring || tombstone) put_signed_varint64(out, local_deletion_time);
  if (path != nullptr) put_length_prefixed(out, *path);
  if (!tombstone) put_length_prefixed(out, value);
}

void encode_row(const Row& row, std::string* out) {
  const int64_t base = encode_row_head(row.liveness, row.deletion, out);
  put_varint64(out, row.columns.size());
  for (const ColumnData& col : row.columns) {
    put_varint64(out, col.id);
    out->push_back(col.complex ? 1 : 0);
    if (!col.complex) {
      encode_cell(col.cell, false, base, out);
      continue;
    }
    encode_deletion(col.complex_deletion, out);
    put_varint64(out, col.cells.size());
    for (const Cell& c : col.cells) encode_cell(c, true, base, out);
  }
}

bool decode_row(std::string_view bytes, Row* row, const ValueColumns* values) {
  // Reset field by field, keeping the vectors' and strings' capacity: the read path decodes
  // millions of rows into the same Row.
  Reader in(bytes);
  int64_t base;
  uint64_t ncolumns;
  if (!decode_row_head(&in, row, &base, &ncolumns)) return false;
  row->columns.resize(ncolumns);
  for (ColumnData& col : row->columns) {
    if (!decode_column_head(&in, &col.id, &col.complex)) return false;
    const bool with_value = values == nullptr || values->wants(col.id);
    if (!decode_column(&in, base, with_value, &col)) return false;
  }
  return in.left() == 0;
}

RowDecode decode_row_skipping(std::string_view bytes, Row* row, const ValueColumns& values,
                              const UnreadSkip& skip) {
  Reader in(bytes);
  int64_t base;
  uint64_t ncolumns;
  if (!decode_row_head(&in, row, &base, &ncolumns)) return RowDecode::kMalformed;
  // (In locals: the stores into the Row are through char types, which may alias anything.)
  const uint8_t* wanted = values.wanted.data();
  const size_t nwanted = values.wanted.size();
  if (!marker_keeps_alive(row->liveness, max_deletion(skip.outer, row->deletion),
                          skip.now_seconds)) {
    row->columns.resize(ncolumns);
    for (ColumnData& col : row->columns) {
      if (!decode_column_head(&in, &col.id, &col.complex)) return RowDecode::kMalformed;
      const bool with_value = col.id < nwanted && wanted[col.id] != 0;
      if (!decode_column(&in, base, with_value, &col)) return RowDecode::kMalformed;
    }
    return in.left() == 0 ? RowDecode::kDecoded : RowDecode::kMalformed;
  }
  // Only the wanted columns are recorded, into the Row's first ColumnData (reused: a scan's rows
  // mostly record the same number).
  size_t recorded = 0;
  for (uint64_t i = 0; i < ncolumns; ++i) {
    // The usual unwanted column first, in one step: a one-byte id, simple, and a plain live cell
    // (flags 0) whose timestamp delta and value length take one byte each.
    if (in.left() >= 5) {
      const auto* b = reinterpret_cast<const uint8_t*>(in.p);
      if (((b[0] | b[3] | b[4]) & 0x80) == 0 && (b[1] | b[2]) == 0 &&
          (b[0] >= nwanted || wanted[b[0]] == 0) && b[4] <= in.left() - 5) {
        in.p += 5 + b[4];
        continue;
      }
    }
    ColumnId id;
    bool complex;
    if (!decode_column_head(&in, &id, &complex)) return RowDecode::kMalformed;
    if (id >= nwanted || wanted[id] == 0) {
      if (!skip_column(&in, complex)) return RowDecode::kMalformed;
      continue;
    }
    if (recorded == row->columns.size()) row->columns.emplace_back();
    ColumnData& col = row->columns[recorded++];
    col.id = id;
    col.complex = complex;
    if (!decode_column(&in, base, true, &col)) return RowDecode::kMalformed;
  }
  if (recorded != row->columns.size()) row->columns.resize(recorded);
  return in.left() == 0 ? RowDecode::kSkipped : RowDecode::kMalformed;
}

void encode_header(const PartitionHeader& header, std::string* out) {
  encode_deletion(header.deletion, out);
  put_varint64(out, header.range_tombstones.size());
  for (const RangeTombstone& rt : header.range_tombstones) {
    put_length_prefixed(out, rt.start);
    put_length_prefixed(out, rt.end);
    encode_deletion(rt.deletion, out);
  }
}

bool decode_header(std::string_view bytes, PartitionHeader* header) {
  *header = PartitionHeader{};
  Reader in(bytes);
  uint64_t n;
  if (!decode_deletion(&in, &header->deletion) || !in.varint(&n) || n > in.left()) return false;
  header->range_tombstones.resize(n);
  for (RangeTombstone& rt : header->range_tombstones) {
    std::string_view start, end;
    if (!in.length_prefixed(&start) || !in.length_prefixed(&end) ||
        !decode_deletion(&in, &rt.deletion)) {
      return false;
    }
    rt.start.assign(start);
    rt.end.assign(end);
  }
  return in.left() == 0;
}

void RowTimes::add_timestamp(int64_t ts) {
  if (ts == kNoTimestamp) return;
  min_timestamp = std::min(min_timestamp, ts);
  max_timestamp = std::max(max_timestamp, ts);
}

namespace {
void add_deletion(const DeletionTime& d, RowTimes* t) {
  if (d.is_live()) return;
  t->add_timestamp(d.marked_for_delete_at);
  t->max_local_deletion_time = std::max(t->max_local_deletion_time, d.local_deletion_time);
  ++t->tombstones;
}
void add_cell(const Cell& c, RowTimes* t) {
  t->add_timestamp(c.timestamp);
  if (c.is_tombstone() || c.is_expiring()) {
    t->max_local_deletion_time = std::max(t->max_local_deletion_time, c.local_deletion_time);
  }
  if (c.is_tombstone()) ++t->tombstones;
}
}  // namespace

void collect_row_times(const Row& row, RowTimes* t) {
  t->add_timestamp(row.liveness.timestamp);
  if (row.liveness.is_expiring()) {
    t->max_local_deletion_time =
        std::max(t->max_local_deletion_time, row.liveness.local_expiration_time);
  }
  add_deletion(row.deletion, t);
  for (const ColumnData& col : row.columns) {
    if (!col.complex) {
      add_cell(col.cell, t);
      continue;
    }
    add_deletion(col.complex_deletion, t);
    for (const Cell& c : col.cells) add_cell(c, t);
  }
}

void collect_header_times(const PartitionHeader& header, RowTimes* t) {
  add_deletion(header.deletion, t);
  for (const RangeTombstone& rt : header.range_tombstones) add_deletion(rt.deletion, t);
}

}  // namespace cassette::storage
