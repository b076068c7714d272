// SAI's text analysis (index_components.h): Cassandra 5.0's NonTokenizingAnalyzer runs
// toLowerCase, then NFC (java.text.Normalizer), then Lucene's ASCIIFoldingFilter on the value as
// a Java string. Here ICU does each step (libicu, Debian's libicu-dev): the root locale's full
// lower-case mapping, the NFC normalizer, and the "Latin-ASCII" transliterator, which folds
// Latin letters with diacritics, ligatures and typographic symbols to ASCII as Lucene's table
// does (the two tables are not identical for every rare symbol).
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/translit.h>
#include <unicode/unistr.h>

#include <memory>
#include <mutex>

#include "engine/schema/index_components.h"

namespace cassette::schema {

namespace {

// ICU's transliterators are not thread-safe: one per thread, made when a thread first folds.
const icu::Transliterator* latin_ascii() {
  thread_local std::unique_ptr<icu::Transliterator> t = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::Transliterator> made(
        icu::Transliterator::createInstance("Latin-ASCII", UTRANS_FORWARD, status));
    if (U_FAILURE(status)) made.reset();
    return made;
  }();
  return t.get();
}

}  // namespace

std::string sai_analyze(uint8_t analysis, std::string_view text) {
  if (analysis == 0) return std::string(text);
  // ASCII text only needs ASCII lower case (NFC and the folding leave ASCII as it is).
  bool ascii = true;
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return analysis & kLowerCase ? sai_fold_case(text) : std::string(text);
  icu::UnicodeString s = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  if (analysis & kLowerCase) s.toLower(icu::Locale::getRoot());
  if (analysis & kNormalize) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
    if (U_SUCCESS(status)) {
      icu::UnicodeString normalized = nfc->normalize(s, status);
      if (U_SUCCESS(status)) s = std::move(normalized);
    }
  }
  if (analysis & kAsciiFold) {
    if (const icu::Transliterator* t = latin_ascii()) t->transliterate(s);
  }
  std::string out;
  s.toUTF8String(out);
  return out;
}

}  // namespace cassette::schema
