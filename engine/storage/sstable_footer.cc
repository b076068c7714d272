#include "engine/storage/sstable_footer.h"

#include "engine/util/coding.h"
#include "engine/util/crc32c.h"

namespace cassette::storage {
namespace {
constexpr size_t kChecksummedBytes = 52;  // three handles and the version
}  // namespace

void encode_footer(const SSTableFooter& footer, std::string* out) {
  const size_t start = out->size();
  for (const BlockHandle* handle : {&footer.summary, &footer.bloom, &footer.stats}) {
    coding::put_fixed64(out, handle->offset);
    coding::put_fixed64(out, handle->size);
  }
  coding::put_fixed32(out, footer.version);
  coding::put_fixed32(
      out, crc32c::mask(crc32c::value(std::string_view(out->data() + start, kChecksummedBytes))));
  out->append(kSSTableMagic);
}

FooterError decode_footer(std::string_view bytes, SSTableFooter* footer) {
  if (bytes.size() != kSSTableFooterSize || bytes.substr(56) != kSSTableMagic) {
    return FooterError::kBadMagic;
  }
  const uint32_t expected = crc32c::unmask(coding::decode_fixed32(bytes.data() + 52));
  if (crc32c::value(bytes.substr(0, kChecksummedBytes)) != expected) {
    return FooterError::kBadChecksum;
  }
  const char* p = bytes.data();
  for (BlockHandle* handle : {&footer->summary, &footer->bloom, &footer->stats}) {
    handle->offset = coding::decode_fixed64(p);
    handle->size = coding::decode_fixed64(p + 8);
    p += 16;
  }
  footer->version = coding::decode_fixed32(p);
  return footer->version == kSSTableFormatVersion ? FooterError::kNone : FooterError::kBadVersion;
}

}  // namespace cassette::storage
