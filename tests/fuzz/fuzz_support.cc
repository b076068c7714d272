#include "tests/fuzz/fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "engine/storage/block.h"
#include "engine/storage/block_format.h"
#include "engine/storage/sstable_footer.h"
#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace cassette::fuzz {

using types::CqlType;
using types::TypeKind;

void check_failed(const char* condition, std::string_view what) {
  std::fprintf(stderr, "fuzz check failed: %s: %.*s\n", condition, static_cast<int>(what.size()),
               what.data());
  std::abort();
}

uint8_t InputReader::byte() {
  if (rest_.empty()) return 0;
  const uint8_t b = static_cast<uint8_t>(rest_[0]);
  rest_.remove_prefix(1);
  return b;
}

std::string_view InputReader::short_piece(size_t max) {
  const size_t n = std::min<size_t>({byte(), max, rest_.size()});
  std::string_view piece = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return piece;
}

std::string_view InputReader::piece() {
  const size_t length = byte() | (size_t{byte()} << 8);
  const size_t n = std::min(length, rest_.size());
  std::string_view piece = rest_.substr(0, n);
  rest_.remove_prefix(n);
  return piece;
}

std::string_view InputReader::take_rest() {
  std::string_view all = rest_;
  rest_ = {};
  return all;
}

// ---- types as bytes ----------------------------------------------------------------------------

namespace {

constexpr int kKinds = static_cast<int>(TypeKind::kUdt) + 1;
constexpr int kMaxDepth = 3;

}  // namespace

CqlType read_type(InputReader& in, int depth) {
  const uint8_t b = in.byte();
  auto kind = static_cast<TypeKind>((b & 0x7f) % kKinds);
  const bool frozen = (b & 0x80) != 0 || depth > 0;
  const bool composite = kind == TypeKind::kList || kind == TypeKind::kSet ||
                         kind == TypeKind::kMap || kind == TypeKind::kTuple ||
                         kind == TypeKind::kUdt;
  if (composite && depth >= kMaxDepth) return CqlType::simple(TypeKind::kInt);
  switch (kind) {
    case TypeKind::kList:
      return CqlType::list(read_type(in, depth + 1), frozen);
    case TypeKind::kSet:
      return CqlType::set(read_type(in, depth + 1), frozen);
    case TypeKind::kMap: {
      CqlType key = read_type(in, depth + 1);
      return CqlType::map(std::move(key), read_type(in, depth + 1), frozen);
    }
    case TypeKind::kTuple: {
      std::vector<CqlType> components(in.byte() % 4 + 1);
      for (CqlType& c : components) c = read_type(in, depth + 1);
      return CqlType::tuple(std::move(components));
    }
    case TypeKind::kUdt: {
      CqlType udt{TypeKind::kUdt, {}, frozen, "ks", "u", {}};
      const int fields = in.byte() % 4 + 1;
      for (int i = 0; i < fields; ++i) {
        udt.params.push_back(read_type(in, depth + 1));
        udt.field_names.push_back("f" + std::to_string(i));
      }
      return udt;
    }
    default:
      return CqlType::simple(kind);
  }
}

void write_type(const CqlType& type, std::string* out) {
  out->push_back(static_cast<char>(static_cast<uint8_t>(type.kind) | (type.frozen ? 0x80 : 0)));
  if (type.kind == TypeKind::kTuple || type.kind == TypeKind::kUdt) {
    out->push_back(static_cast<char>(type.params.size() - 1));
  }
  for (const CqlType& param : type.params) write_type(param, out);
}

// ---- files
// ---------------------------------------------------------------------------------------

std::string scratch_path(std::string_view name) {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    const fs::path base = fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path();
    fs::path d = base / ("cassette-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    // Best effort: the scratch directory goes when the process ends normally.
    static struct Cleanup {
      fs::path path;
      ~Cleanup() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
      }
    } cleanup{d};
    return d.string();
  }();
  return dir + "/" + std::string(name);
}

void write_file(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good(), "cannot write " + path);
}

void remove_tree(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

void copy_tree(const std::string& from, const std::string& to) {
  remove_tree(to);
  std::error_code error;
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive, error);
  FUZZ_CHECK(!error, "cannot copy " + from + " to " + to + ": " + error.message());
}

// ---- SSTable blocks
// --------------------------------------------------------------------------------

namespace {

bool handle_in_file(const storage::BlockHandle& handle, std::string_view file) {
  const uint64_t limit = file.size() - storage::kSSTableFooterSize;
  return handle.offset <= limit && handle.size <= limit - handle.offset &&
         storage::kBlockTrailerSize <= limit - handle.offset - handle.size;
}

// The handles in the values of a raw index block (the summary or an index block).
std::vector<storage::BlockHandle> child_handles(std::string_view file,
                                                const storage::BlockHandle& handle) {
  std::vector<storage::BlockHandle> children;
  if (file[handle.offset + handle.size] != 0) return children;  // not raw: cannot follow
  auto block = std::make_shared<const std::string>(file.substr(handle.offset, handle.size));
  static const std::string path = "fuzz";
  storage::BlockIterator it;
  it.reset(block, &path, handle.offset);
  for (it.seek_to_first(); it.valid(); it.next()) {
    std::string_view value = it.value();
    storage::BlockHandle child;
    if (storage::decode_block_handle(&value, &child) && handle_in_file(child, file)) {
      children.push_back(child);
    }
  }
  return children;
}

}  // namespace

void for_each_stored_block(std::string_view file,
                           const std::function<void(uint64_t, uint64_t)>& fn) {
  if (file.size() < storage::kSSTableFooterSize) return;
  std::string_view footer_bytes = file.substr(file.size() - storage::kSSTableFooterSize);
  // Decoded by hand: decode_footer stops at a bad checksum, and the point is to get past it.
  storage::BlockHandle handles[3];
  for (int i = 0; i < 3; ++i) {
    handles[i].offset = coding::decode_fixed64(footer_bytes.data() + 16 * i);
    handles[i].size = coding::decode_fixed64(footer_bytes.data() + 16 * i + 8);
  }
  for (const storage::BlockHandle& h : handles) {
    if (handle_in_file(h, file)) fn(h.offset, h.size);
  }
  if (!handle_in_file(handles[0], file)) return;
  for (const storage::BlockHandle& index : child_handles(file, handles[0])) {
    fn(index.offset, index.size);
    for (const storage::BlockHandle& data : child_handles(file, index)) fn(data.offset, data.size);
  }
}

void repair_sstable_checksums(std::string* file) {
  if (file->size() < storage::kSSTableFooterSize) return;
  // Blocks first: the index walk reads the blocks, not their checksums, so order does not
  // matter for it, but the footer's own checksum covers only the footer.
  for_each_stored_block(*file, [file](uint64_t offset, uint64_t size) {
    const uint32_t crc =
        crc32c::mask(crc32c::value(std::string_view(*file).substr(offset, size + 1)));
    std::string fixed;
    coding::put_fixed32(&fixed, crc);
    file->replace(offset + size + 1, 4, fixed);
  });
  const size_t footer = file->size() - storage::kSSTableFooterSize;
  std::string fixed;
  coding::put_fixed32(&fixed,
                      crc32c::mask(crc32c::value(std::string_view(*file).substr(footer, 52))));
  file->replace(footer + 52, 4, fixed);
}

}  // namespace cassette::fuzz
