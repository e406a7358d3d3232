// Large prose inputs: a 5 MB README completes with every fact of its
// repeated sections, and the cost grows linearly with the size (a ratio of
// CPU times between 1 MB and 5 MB, not an absolute timing).
#include <algorithm>
#include <ctime>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "frontend/prose/prose_frontend.h"

using namespace mpsaudit;

namespace {

// One section of a README: a requirements list, plain prose that mentions
// nothing, a fenced install command and example code, and a changelog whose
// lines must stay silent. Every section yields the same facts on new lines.
const std::string kSection = R"(## Requirements

- CUDA 11.8 or later
- NVIDIA driver >= 525.60
- At least 24 GB of GPU memory

This project trains small models quickly, and the results are described in the paper.
Ordinary sentences such as this one mention neither hardware nor toolkits at all.

```bash
pip install torch --index-url https://download.pytorch.org/whl/cu118
python train.py --fp16
model = model.cuda()
```

## Changelog

- 2023-05-01: added CUDA 12 wheels, tested on an A100

)";

// A Markdown text of at least `bytes` bytes made of whole sections.
std::string generated_readme(std::size_t bytes) {
  std::string text = "# Project\n\n";
  while (text.size() < bytes)
    text += kSection;
  return text;
}

std::size_t section_count(const std::string &text) {
  std::size_t count = 0;
  for (std::size_t at = text.find("## Requirements"); at != std::string::npos;
       at = text.find("## Requirements", at + 1))
    ++count;
  return count;
}

// Least process CPU time of a few extractions, in seconds.
double least_cpu_seconds(const std::string &text) {
  double least = 1e9;
  for (int run = 0; run < 3; ++run) {
    const std::clock_t start = std::clock();
    const FileFacts facts = extract_prose_text(text, "README.md");
    least = std::min(least, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
    REQUIRE(!facts.facts.empty());
  }
  return least;
}

} // namespace

TEST_CASE("a 5 MB README: every section's facts, once-per-file classes counted", "[prose][scaling]") {
  const std::string text = generated_readme(5u << 20);
  const std::size_t sections = section_count(text);
  REQUIRE(sections > 10000);
  const FileFacts facts = extract_prose_text(text, "README.md");
  std::map<std::string, std::size_t> per_class;
  std::map<std::string, std::string> more;
  std::size_t launches = 0; // `python train.py --fp16`: a shell fact per section
  for (const Fact &fact : facts.facts) {
    if (fact.kind == "shell") {
      ++launches;
      continue;
    }
    ++per_class[fact.name];
    more[fact.name] = *fact.attribute("more");
  }
  CHECK(launches == sections);
  CHECK(per_class["cuda-toolkit"] == sections);
  CHECK(per_class["nvidia-driver"] == sections);
  CHECK(per_class["vram"] == sections);
  CHECK(per_class["cuda-index"] == sections);
  // Example code and fp16 recipes are reported once, with the count of the rest.
  CHECK(per_class["cuda-example"] == 1);
  CHECK(per_class["fp16-example"] == 1);
  CHECK(more["cuda-example"] == " (and " + std::to_string(sections - 1) + " more lines of this file)");
  // The changelog's A100 and CUDA 12 are history, not requirements.
  CHECK(per_class.count("gpu-model") == 0);
  CHECK(per_class.count("linux-only") == 0);
}

TEST_CASE("prose cost grows linearly: 5 MB costs about five times 1 MB", "[prose][scaling]") {
  const std::string small = generated_readme(1u << 20);
  const std::string large = generated_readme(5u << 20);
  least_cpu_seconds(small); // compiles the patterns of this thread
  const double small_seconds = least_cpu_seconds(small);
  const double large_seconds = least_cpu_seconds(large);
  INFO("1 MB: " << small_seconds << " s, 5 MB: " << large_seconds << " s");
  // Linear is about 5; quadratic would be about 25. The margin absorbs a
  // shared machine's noise.
  CHECK(large_seconds < 12 * std::max(small_seconds, 1e-3));
}
