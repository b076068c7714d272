#include "ext/server/md5.h"

#include <openssl/evp.h>

namespace cassette::server {

std::string md5(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // EVP_Digest fails only when the digest is unavailable or memory runs out; MD5 is in every
  // OpenSSL build, so a failure here leaves an empty id, which no statement matches.
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr) != 1) return {};
  return std::string(reinterpret_cast<const char*>(digest), size);
}

}  // namespace cassette::server
