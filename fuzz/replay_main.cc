// A main() for fuzz targets built without libFuzzer (the normal gcc build, with or without
// sanitizers): runs LLVMFuzzerTestOneInput on every file of the given corpus directories, so each
// checked-in seed and past crash is a regression test, plus a fixed number of deterministic
// mutations of each (bit flips, byte changes, cuts, insertions) for a little coverage beyond the
// seeds. Real fuzzing is tools/fuzz.sh, with clang and libFuzzer.
//
//   replay_test [--mutations=N] [--min_inputs=N] PATH...   (files or directories)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));

namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// One small random edit of the kinds libFuzzer makes most often.
void Mutate(std::mt19937_64& rng, std::string* s) {
  auto pick = [&rng](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  switch (rng() % 6) {
    case 0:  // flip one bit
      if (!s->empty()) (*s)[pick(s->size())] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1:  // set one byte to an interesting or random value
      if (!s->empty()) {
        static constexpr uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '=', ':'};
        (*s)[pick(s->size())] = static_cast<char>(
            rng() % 2 ? kInteresting[rng() % sizeof(kInteresting)] : static_cast<uint8_t>(rng()));
      }
      break;
    case 2:  // cut a range
      if (!s->empty()) {
        const size_t at = pick(s->size());
        s->erase(at, 1 + pick(std::min<size_t>(s->size() - at, 16)));
      }
      break;
    case 3: {  // insert random bytes
      const size_t at = pick(s->size() + 1);
      std::string bytes(1 + rng() % 8, '\0');
      for (char& c : bytes) c = static_cast<char>(rng());
      s->insert(at, bytes);
      break;
    }
    case 4:  // truncate
      s->resize(pick(s->size() + 1));
      break;
    default: {  // duplicate a chunk in place
      if (s->empty()) break;
      const size_t at = pick(s->size());
      const size_t len = 1 + pick(std::min<size_t>(s->size() - at, 32));
      s->insert(at, s->substr(at, len));
      break;
    }
  }
}

int Usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--mutations=N] [--min_inputs=N] PATH...\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  long mutations = 0;
  long min_inputs = 1;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--mutations=", 0) == 0) {
      mutations = std::strtol(arg.c_str() + 12, nullptr, 10);
    } else if (arg.rfind("--min_inputs=", 0) == 0) {
      min_inputs = std::strtol(arg.c_str() + 13, nullptr, 10);
    } else if (arg.rfind("--", 0) == 0) {
      return Usage(argv[0]);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path().string());
      }
    } else {
      files.push_back(arg);
    }
  }
  // A fixed order keeps the mutations, and so any failure, reproducible.
  std::sort(files.begin(), files.end());
  if (static_cast<long>(files.size()) < min_inputs) {
    std::fprintf(stderr, "found %zu corpus files, expected at least %ld (check the paths)\n",
                 files.size(), min_inputs);
    return 1;
  }

  const auto start = std::chrono::steady_clock::now();
  uint64_t runs = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    std::string input;
    if (!ReadFile(files[f], &input)) {
      std::fprintf(stderr, "cannot read %s\n", files[f].c_str());
      return 1;
    }
    // Exact-size copies let AddressSanitizer see any read past the end of the input.
    std::vector<uint8_t> exact(input.begin(), input.end());
    LLVMFuzzerTestOneInput(exact.data(), exact.size());
    ++runs;
    std::mt19937_64 rng(0x5eed0000u + f);
    std::string mutant = input;
    for (long m = 0; m < mutations; ++m) {
      // Edits accumulate for a few rounds, then start again from the seed.
      if (m % 4 == 0) mutant = input;
      Mutate(rng, &mutant);
      std::vector<uint8_t> bytes(mutant.begin(), mutant.end());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++runs;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("replayed %zu corpus files and %llu inputs in all in %.2f s; no failure\n",
              files.size(), static_cast<unsigned long long>(runs), seconds);
  return 0;
}
