#include "engine/storage/manifest.h"

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"
#include "engine/util/file.h"

namespace cassette::storage {
namespace {
constexpr char kMagic[8] = {'C', 'S', 'T', 'M', 'A', 'N', 'I', 'F'};
constexpr uint32_t kVersion = 1;
}  // namespace

std::string encode_manifest(const Manifest& m) {
  std::string out(kMagic, 8);
  coding::put_fixed32(&out, kVersion);
  coding::put_fixed64(&out, m.generation);
  coding::put_fixed64(&out, m.covered.segment);
  coding::put_fixed64(&out, m.covered.offset);
  coding::put_fixed64(&out, static_cast<uint64_t>(m.last_timestamp));
  coding::put_fixed32(&out, static_cast<uint32_t>(m.files.size()));
  for (const ManifestFile& f : m.files) {
    coding::put_fixed64(&out, f.table);
    coding::put_fixed64(&out, f.file_id);
    coding::put_fixed64(&out, f.size);
  }
  coding::put_fixed32(&out, crc32c::mask(crc32c::value(out)));
  return out;
}

Result<Manifest> decode_manifest(std::string_view bytes, const std::string& path) {
  auto corrupt = [&](std::string_view what) {
    return Status::corruption(fmt::format("manifest {}: {}", path, what));
  };
  if (bytes.size() < 8 + 4 + 8 * 4 + 4 + 4) return corrupt("file too short");
  if (bytes.substr(0, 8) != std::string_view(kMagic, 8)) return corrupt("bad magic number");
  std::string_view body = bytes.substr(0, bytes.size() - 4);
  uint32_t stored = coding::decode_fixed32(bytes.data() + bytes.size() - 4);
  if (crc32c::unmask(stored) != crc32c::value(body)) return corrupt("checksum mismatch");
  std::string_view in = body.substr(8);
  uint32_t version, count;
  Manifest m;
  uint64_t last_ts;
  if (!coding::get_fixed32(&in, &version)) return corrupt("truncated header");
  if (version != kVersion) return corrupt(fmt::format("unsupported format version {}", version));
  if (!coding::get_fixed64(&in, &m.generation) || !coding::get_fixed64(&in, &m.covered.segment) ||
      !coding::get_fixed64(&in, &m.covered.offset) || !coding::get_fixed64(&in, &last_ts) ||
      !coding::get_fixed32(&in, &count)) {
    return corrupt("truncated header");
  }
  m.last_timestamp = static_cast<int64_t>(last_ts);
  if (in.size() != static_cast<size_t>(count) * 24) return corrupt("file list has the wrong size");
  m.files.resize(count);
  for (ManifestFile& f : m.files) {
    coding::get_fixed64(&in, &f.table);
    coding::get_fixed64(&in, &f.file_id);
    coding::get_fixed64(&in, &f.size);
  }
  return m;
}

Result<Manifest> read_manifest(const std::string& path) {
  CASSETTE_ASSIGN_OR_RETURN(std::string bytes, file::read_whole_file(path));
  return decode_manifest(bytes, path);
}

Status write_manifest(const std::string& path, const Manifest& manifest) {
  return file::write_file_atomically(path, encode_manifest(manifest));
}

std::string sstable_file_name(TableId table, uint64_t file_id) {
  return fmt::format("{:016x}-{:016x}.sst", table, file_id);
}

}  // namespace cassette::storage
