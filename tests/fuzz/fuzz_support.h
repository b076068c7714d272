// What the fuzz targets (tests/fuzz/*_fuzzer.cc) share: a reader that takes typed pieces off the
// front of an input, CQL types written as bytes (so one input can carry a type and a value of
// it), a scratch directory for targets that need files, checks that abort with a message, and
// a walk over an SSTable's stored blocks that can put right their checksums (a fuzzer cannot
// guess a CRC, so a target that wants to reach the code behind one repairs it first).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/types/cql_type.h"

namespace cassette::fuzz {

// Aborts with "fuzz check failed: <what>" when `condition` is false: a target's way of saying
// that an invariant broke (libFuzzer then saves the input as a crash).
#define FUZZ_CHECK(condition, ...)                                             \
  do {                                                                         \
    if (!(condition)) ::cassette::fuzz::check_failed(#condition, __VA_ARGS__); \
  } while (0)
[[noreturn]] void check_failed(const char* condition, std::string_view what);

// Takes pieces off the front of an input; past its end every read gives zeros / empty.
class InputReader {
 public:
  explicit InputReader(std::string_view input) : rest_(input) {}
  uint8_t byte();
  bool boolean() { return byte() & 1; }
  // A piece of at most `max` bytes, its length taken from one byte first.
  std::string_view short_piece(size_t max = 255);
  // A piece of up to 65535 bytes, its length taken from two bytes (little-endian) first.
  std::string_view piece();
  std::string_view rest() const { return rest_; }
  std::string_view take_rest();

 private:
  std::string_view rest_;
};

// A CQL type read from bytes: one byte gives the kind (low 7 bits, modulo the number of kinds)
// and frozen (high bit); collections, tuples (1-4 components) and UDTs (1-4 fields f0, f1, ...)
// read their element types after it, nested at most three deep. Types nested in a collection,
// tuple or UDT are frozen, as CQL requires.
types::CqlType read_type(InputReader& in, int depth = 0);
// The bytes read_type reads back as `type` (for seeds).
void write_type(const types::CqlType& type, std::string* out);

// A directory for this process's scratch files, made on first use (on /dev/shm when there is
// one, so files cost no disk I/O). `name` inside it.
std::string scratch_path(std::string_view name);
void write_file(const std::string& path, std::string_view bytes);
void remove_tree(const std::string& path);
void copy_tree(const std::string& from, const std::string& to);  // replaces `to`

// Calls fn(offset, size) for the payload of every stored block an SSTable file names: the
// summary, bloom and statistics blocks from its footer, the index blocks from the summary and
// the data blocks from each index block, as far as they can be read (a block whose handle is
// out of bounds or whose bytes do not decode is skipped). The blocks must be raw (uncompressed)
// for the index to be followed.
void for_each_stored_block(std::string_view file,
                           const std::function<void(uint64_t offset, uint64_t size)>& fn);
// Rewrites the footer's checksum and the trailer checksum of every block for_each_stored_block
// finds, so that a mutated file gets past them to the decoding behind.
void repair_sstable_checksums(std::string* file);

}  // namespace cassette::fuzz
