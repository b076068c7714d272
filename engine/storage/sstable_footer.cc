#include "engine/storage/sstable_footer.h"

#include "engine/util/coding.h"

namespace cassette::storage {

void encode_footer(const SSTableFooter& f, std::string* out) {
  for (const BlockHandle& h : {f.summary, f.bloom, f.stats}) {
    coding::put_fixed64(out, h.offset);
    coding::put_fixed64(out, h.size);
  }
  coding::put_fixed32(out, f.version);
  out->append(kSSTableMagic);
}

bool decode_footer(std::string_view bytes, SSTableFooter* f) {
  if (bytes.size() != kSSTableFooterSize || bytes.substr(52) != kSSTableMagic) return false;
  const char* p = bytes.data();
  for (BlockHandle* h : {&f->summary, &f->bloom, &f->stats}) {
    h->offset = coding::decode_fixed64(p);
    h->size = coding::decode_fixed64(p + 8);
    p += 16;
  }
  f->version = coding::decode_fixed32(p);
  return true;
}

void encode_stats(const SSTableStats& s, std::string* out) {
  coding::put_varint64(out, s.entries);
  coding::put_varint64(out, s.partitions);
  coding::put_varint64(out, s.rows);
  coding::put_varint64(out, s.headers);
  coding::put_varint64(out, s.static_rows);
  coding::put_varint64(out, s.tombstones);
  coding::put_signed_varint64(out, s.min_timestamp);
  coding::put_signed_varint64(out, s.max_timestamp);
  coding::put_signed_varint64(out, s.max_local_deletion_time);
  coding::put_length_prefixed(out, s.first_key);
  coding::put_length_prefixed(out, s.last_key);
  coding::put_varint64(out, s.data_bytes);
}

bool decode_stats(std::string_view in, SSTableStats* s) {
  std::string_view first, last;
  bool ok = coding::get_varint64(&in, &s->entries) && coding::get_varint64(&in, &s->partitions) &&
            coding::get_varint64(&in, &s->rows) && coding::get_varint64(&in, &s->headers) &&
            coding::get_varint64(&in, &s->static_rows) && coding::get_varint64(&in, &s->tombstones) &&
            coding::get_signed_varint64(&in, &s->min_timestamp) &&
            coding::get_signed_varint64(&in, &s->max_timestamp) &&
            coding::get_signed_varint64(&in, &s->max_local_deletion_time) &&
            coding::get_length_prefixed(&in, &first) && coding::get_length_prefixed(&in, &last) &&
            coding::get_varint64(&in, &s->data_bytes) && in.empty();
  if (!ok) return false;
  s->first_key.assign(first);
  s->last_key.assign(last);
  return true;
}

}  // namespace cassette::storage
