// Checkpoints recognised by their first bytes or by a name other formats
// share (.pkl, .model): the signatures discovery looks for, and the reader's
// verdict on a guessed file, which must hold a pickle torch.load would
// unpickle, or name a callable, to count as a checkpoint.
#include <string>

#include <catch2/catch.hpp>

#include "checkpoint_test_support.h"
#include "frontend/checkpoint/checkpoint_reader.h"

using namespace mpsaudit;
using namespace mpsaudit::checkpoint;
using namespace mpsaudit::checkpoint::testing;

namespace {

// GLOBAL posix system, a one-string tuple, REDUCE, STOP: os.system("true").
const std::string kHostileProtocol2("\x80\x02"
                                    "cposix\nsystem\nU\x04true\x85R.",
                                    24);

CheckpointSummary guess(const std::string &bytes) {
  MemorySource source(bytes);
  return read_checkpoint(source, true);
}

// One tar member as Python's tarfile writes it (ustar), then the end marker.
std::string tar_of(const std::string &name, const std::string &data) {
  std::string header(512, '\0');
  header.replace(0, name.size(), name);
  header.replace(100, 7, "0000644");
  char size[12];
  std::snprintf(size, sizeof size, "%011o", static_cast<unsigned>(data.size()));
  header.replace(124, 11, size);
  header.replace(136, 11, "00000000000");
  header[156] = '0';
  header.replace(257, 6, std::string("ustar\0", 6));
  header.replace(263, 2, "00");
  header.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : header)
    sum += c;
  char checksum[8];
  std::snprintf(checksum, sizeof checksum, "%06o", sum);
  header.replace(148, 7, std::string(checksum, 6) + std::string(1, '\0'));
  std::string padded = data;
  padded.resize((data.size() + 511) / 512 * 512, '\0');
  return header + padded + std::string(1024, '\0');
}

// A fixture with one entry name changed (same length: the zip stays valid,
// its CRCs are over the data).
std::string renamed_entry(std::string zip, const std::string &from, const std::string &to) {
  REQUIRE(from.size() == to.size());
  for (std::size_t at = zip.find(from); at != std::string::npos; at = zip.find(from, at + 1))
    zip.replace(at, to.size(), to);
  return zip;
}

} // namespace

TEST_CASE("the first bytes of the formats torch.load reads are recognised", "[checkpoint][guess]") {
  for (const char protocol : {'\x02', '\x03', '\x04', '\x05'})
    CHECK(has_checkpoint_signature(std::string("\x80") + protocol + "}q\x00."));
  CHECK(has_checkpoint_signature(read_fixture("dataparallel_cuda.pt").substr(0, 512)));
  CHECK(has_checkpoint_signature(tar_of("storages", "x").substr(0, 512)));
  CHECK(has_checkpoint_signature(read_fixture("small.safetensors").substr(0, 512)));
  // Protocol 0 and 1 have no header; a protocol past 5 is none; text,
  // images, an empty zip, a damaged tar header and a huge safetensors
  // length are not checkpoints.
  CHECK_FALSE(has_checkpoint_signature("(dp0\nS'a'\np1\nI1\ns."));
  CHECK_FALSE(has_checkpoint_signature("\x80\x06}."));
  CHECK_FALSE(has_checkpoint_signature("\x80"));
  CHECK_FALSE(has_checkpoint_signature(""));
  CHECK_FALSE(has_checkpoint_signature("the 1\nof 2\n"));
  CHECK_FALSE(has_checkpoint_signature("\x89PNG\r\n\x1a\n"));
  CHECK_FALSE(has_checkpoint_signature(std::string("PK\x05\x06", 4) + std::string(18, '\0')));
  std::string damaged = tar_of("storages", "x").substr(0, 512);
  damaged[0] = 'S';
  CHECK_FALSE(has_checkpoint_signature(damaged));
  CHECK_FALSE(has_checkpoint_signature(std::string("\xff\xff\xff\xff\xff\xff\xff\x7f{}", 10)));
}

TEST_CASE("a guessed checkpoint holding a pickle torch.load unpickles is read as one",
          "[checkpoint][guess]") {
  CHECK(guess(kHostileProtocol2).status == "hostile");
  CHECK(guess(kHostileProtocol2).dangerous_globals == std::vector<std::string>{"posix.system"});
  CHECK(guess(read_fixture("hostile_os_system.pt")).status == "hostile");
  CHECK(guess(read_fixture("hostile_legacy.pth")).status == "hostile");
  CHECK(guess(read_fixture("dataparallel_cuda.pt")).status == "ok");
  CHECK(guess(read_fixture("small.safetensors")).format == "safetensors");
  CHECK(guess(read_fixture("small.safetensors")).status == "ok");
  // A legacy tar whose storages member calls os.system.
  const CheckpointSummary tar = guess(tar_of("storages", kHostileProtocol2));
  CHECK(tar.format == "torch-tar");
  CHECK(tar.status == "hostile");
  // No data.pkl, but another pickle of the zip names a callable: reported.
  const CheckpointSummary other_pickle =
      guess(renamed_entry(read_fixture("hostile_os_system.pt"), "data.pkl", "eval.pkl"));
  CHECK(other_pickle.status == "hostile");
}

TEST_CASE("a guessed checkpoint that holds nothing torch.load unpickles is none", "[checkpoint][guess]") {
  const std::string no_data_pkl = renamed_entry(read_fixture("dataparallel_cuda.pt"), "data.pkl", "data.pkx");
  const std::string dataset_tar = tar_of("000001.jpg", "\xff\xd8\xff\xe0");
  const std::string bad_header = read_fixture("bad_json.safetensors");
  const std::string header_only = std::string("\x80\x03", 2) + std::string(600, '\xfe');
  for (const std::string &bytes : {no_data_pkl, dataset_tar, bad_header, header_only, std::string()}) {
    const CheckpointSummary summary = guess(bytes);
    CHECK(summary.status == "not-a-checkpoint");
    CHECK(summary.tensors.empty());
    CHECK_FALSE(summary.problem.empty());
    // By a checkpoint's name, the same bytes are reported as damaged.
    CHECK(summarize(bytes).status == "unreadable");
  }
  // The front end says so as for any file that is no checkpoint.
  const FileFacts facts = extract_checkpoint(dataset_tar, "data/shard.tar", "", true);
  CHECK(facts.facts.empty());
  CHECK(facts.mode == "skipped");
  REQUIRE(facts.diagnostics.size() == 1);
  CHECK(facts.diagnostics.front().code == "not-a-checkpoint");
}
