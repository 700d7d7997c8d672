// Writes the seed corpus of the alltypes decoder fuzzer: for every type, a few valid encodings
// (random and full-length values, in both byte orders), each prefixed by the byte that selects
// the type's decoder. Deterministic: the committed tests/fuzz/corpus/alltypes is its output, and
// tests/e2e/test_fuzz_decoders.py checks that it still is.
//   alltypes_seeds <directory>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "alltypes_values.hpp"

namespace {

namespace cdr = ::kairos::cdr;

constexpr std::size_t kSeedsPerType = 2;
alignas(8) std::array<std::byte, 4096> buffer;

bool write_file(const std::string& path, std::uint8_t selector, std::span<const std::byte> body) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return false;
  }
  const bool ok = std::fwrite(&selector, 1, 1, file) == 1 &&
                  std::fwrite(body.data(), 1, body.size(), file) == body.size();
  return std::fclose(file) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: alltypes_seeds <directory>\n");
    return 2;
  }
  const std::string directory = argv[1];
  std::size_t index = 0;
  bool ok = true;
  alltypes_values::for_each_type(
      [&]<typename T>(std::string_view name, std::size_t /*max_size*/, bool /*is_message*/) {
        alltypes_values::Rng rng(0xC0FFEEU + index);
        for (std::size_t seed = 0; seed < kSeedsPerType; ++seed) {
          const bool little_endian = seed % 2 == 0;
          T value{};
          alltypes_values::fill(
              value, rng,
              seed == 0 ? alltypes_values::Length::kRandom : alltypes_values::Length::kFull);
          cdr::Writer writer(std::span<std::byte>(buffer), little_endian);
          encode(writer, value);
          const auto selector = static_cast<std::uint8_t>(index | (little_endian ? 0x80U : 0x00U));
          ok = ok && writer.ok() &&
               write_file(directory + "/" + std::string(name) + "-" + std::to_string(seed),
                          selector, writer.written());
        }
        ++index;
      });
  if (!ok) {
    std::fprintf(stderr, "alltypes_seeds: could not write every seed into %s\n", argv[1]);
    return 1;
  }
  return 0;
}
