#include "frontend/prose/prose_frontend.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <tuple>
#include <vector>

#include "core/fact_kinds.h"
#include "core/launch_command.h"
#include "core/text.h"
#include "frontend/checkpoint/checkpoint_reader.h"
#include "frontend/prose/model_config.h"

namespace mpsaudit {
namespace {

// std::regex (libstdc++) recurses per character; long minified lines could
// exhaust the stack, so sentences are cut to this length before matching.
constexpr std::size_t kMaxSentence = 600;

// A run of text to classify: a paragraph of prose or one line of code.
struct Segment {
  std::string text;
  // Where each source line starts in `text`: offset, line, and the 1-based
  // column of its first character in the file (lines are trimmed when joined).
  struct LineStart {
    std::size_t offset;
    std::uint32_t line;
    std::uint32_t column;
  };
  std::vector<LineStart> line_starts;
  bool code = false;
  bool requirement_section = false;
  // A list item ("- Linux"): under a requirements heading or a lead-in
  // paragraph such as "Core requirements:", a bare item states a need.
  bool list_item = false;
  // A heading's title; classified apart from the prose (see heading_hazards).
  bool heading = false;
};

// 1-based line and column of `offset` in the segment's text.
// Binary search: a paragraph of many thousand lines must not cost a scan per fact.
std::pair<std::uint32_t, std::uint32_t> position_at(const Segment &segment, std::size_t offset) {
  const auto after = std::upper_bound(
      segment.line_starts.begin(), segment.line_starts.end(), offset,
      [](std::size_t wanted, const Segment::LineStart &start) { return wanted < start.offset; });
  const Segment::LineStart &where =
      after == segment.line_starts.begin() ? segment.line_starts.front() : *(after - 1);
  return {where.line, where.column + static_cast<std::uint32_t>(offset - where.offset)};
}

// Column (1-based) of the first non-blank character of `raw`.
std::uint32_t first_column(std::string_view raw) {
  const std::size_t at = raw.find_first_not_of(" \t");
  return static_cast<std::uint32_t>(at == std::string_view::npos ? 1 : at + 1);
}

const std::regex &icase(const char *pattern) {
  static thread_local std::deque<std::pair<const char *, std::regex>> cache; // stable addresses
  for (const auto &[key, compiled] : cache)
    if (key == pattern)
      return compiled;
  cache.emplace_back(pattern, std::regex(pattern, std::regex::icase | std::regex::ECMAScript));
  return cache.back().second;
}

const std::regex &exact(const char *pattern) {
  static thread_local std::deque<std::pair<const char *, std::regex>> cache; // stable addresses
  for (const auto &[key, compiled] : cache)
    if (key == pattern)
      return compiled;
  cache.emplace_back(pattern, std::regex(pattern, std::regex::ECMAScript));
  return cache.back().second;
}

bool search(const std::string &text, const std::regex &pattern) {
  return std::regex_search(text, pattern);
}

// For patterns that begin with ^: tries the match at the start only. Plain
// regex_search would try (and fail) at every later offset, at a cost per
// offset that dominated the scan of a README.
bool search_at_start(const std::string &text, const std::regex &pattern, std::smatch *match = nullptr) {
  std::smatch unused;
  return std::regex_search(text, match ? *match : unused, pattern, std::regex_constants::match_continuous);
}

// True when `text` contains one of `words`. std::regex costs microseconds per
// sentence even when nothing matches, so each pattern below is guarded by
// literals that every match of it must contain (lower case for an icase
// pattern, tested against the lower-cased sentence); the guard only skips
// patterns that cannot match, so the findings are those of the patterns alone.
bool contains_any(std::string_view text, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words)
    if (text.find(word) != std::string_view::npos)
      return true;
  return false;
}

// Headings that introduce requirements, and those that introduce history.
bool is_requirement_heading(const std::string &heading) {
  return search(heading, icase("requirement|prerequisite|install|setup|set up|environment|"
                               "dependenc|hardware|system|getting started|quick ?start|"
                               "compatib|supported platform"));
}
// A paragraph that introduces a list of needs: "Core requirements:", "You will need:".
bool is_requirement_lead(const std::string &text) {
  return search(text, icase("requirement|prerequisite|dependenc|you('ll| will)? need|supported platform|"
                            "system|hardware"));
}
bool is_changelog_heading(const std::string &heading) {
  return search(heading, icase("change ?log|changes|news|release notes|history|what'?s new|"
                               "updates|update log|announcement"));
}
bool is_changelog_file(const std::string &path) {
  const auto slash = path.rfind('/');
  const std::string name = to_lower(slash == std::string::npos ? path : path.substr(slash + 1));
  for (const char *prefix : {"changelog", "changes", "history", "news", "release", "citation"})
    if (starts_with(name, prefix))
      return true;
  return false;
}

// A list item or line that records a change rather than stating a need:
// "- 2023-05-01: added CUDA 12 wheels", "* [v1.2] Fixed ...", "Fixed a crash on A100".
bool is_changelog_line(const std::string &text) {
  return search_at_start(text,
                         icase("^\\s*(([-*+]|\\d+[.)])\\s+)?(\\*\\*|__)?[\\[(]?(\\d{4}[-/.]\\d{1,2}|\\d{1,2}/"
                               "\\d{4}|v?\\d+\\.\\d+(\\.\\d+)?[\\])]?\\s*[:-])")) ||
         search_at_start(text,
                         icase("^\\s*(([-*+]|\\d+[.)])\\s+)?(\\*\\*|__)?[\\[(]?(fixed|fixes|fix|added|adds|"
                               "updated|updates|removed|"
                               "bumped|bump|deprecated|dropped|changed|merged|released|improved)\\b"));
}

// An open heading, classified once when it opens (not once per paragraph
// and code line beneath it).
struct Heading {
  int level = 0;
  bool requirement = false;
  bool changelog = false;
};

// Parses Markdown/RST/plain text into segments, tracking fenced code,
// RST literal blocks, headings, and HTML comments.
std::vector<Segment> segment_text(std::string_view text, bool whole_file_changelog) {
  std::vector<Segment> segments;
  const LineIndex lines(text);
  std::vector<Heading> headings; // the open heading path
  bool in_fence = false;
  std::string fence;
  bool in_comment = false;
  bool in_rst_literal = false;
  // The last paragraph introduced a requirements list ("Core requirements:").
  bool requirement_lead = false;
  Segment paragraph;

  const auto requirement_section = [&] {
    return std::any_of(headings.begin(), headings.end(), [](const Heading &h) { return h.requirement; });
  };
  const auto changelog_section = [&] {
    return whole_file_changelog ||
           std::any_of(headings.begin(), headings.end(), [](const Heading &h) { return h.changelog; });
  };
  const auto flush = [&] {
    if (!paragraph.text.empty() && !changelog_section()) {
      paragraph.requirement_section = requirement_section() || (paragraph.list_item && requirement_lead);
      if (!paragraph.list_item)
        requirement_lead = ends_with(trim(paragraph.text), ":") && is_requirement_lead(paragraph.text);
      segments.push_back(std::move(paragraph));
    }
    paragraph = Segment{};
  };
  const auto open_heading = [&](int level, std::string title, std::uint32_t number, std::uint32_t column) {
    flush();
    requirement_lead = false;
    while (!headings.empty() && headings.back().level >= level)
      headings.pop_back();
    const bool requirement_heading = is_requirement_heading(title);
    const bool changelog_heading = is_changelog_heading(title);
    if (!changelog_section() && !changelog_heading) {
      Segment heading;
      heading.text = title;
      heading.line_starts.push_back({0, number, column});
      heading.heading = true;
      heading.requirement_section = requirement_section() || requirement_heading;
      segments.push_back(std::move(heading));
    }
    headings.push_back({level, requirement_heading, changelog_heading});
  };
  const auto add_code_line = [&](std::string_view line, std::uint32_t number) {
    if (changelog_section() || trim(line).empty())
      return;
    Segment segment;
    segment.text = std::string(line);
    segment.line_starts.push_back({0, number, 1});
    segment.code = true;
    segment.requirement_section = requirement_section();
    segments.push_back(std::move(segment));
  };

  std::string stripped; // the current line without inline HTML comments
  for (std::uint32_t number = 1; number <= lines.line_count(); ++number) {
    std::string_view raw = lines.line_text(number);
    // Inline comments (<!-- ... --> within one line) are invisible to readers.
    if (!in_comment && raw.find("<!--") != std::string_view::npos && !starts_with(trim(raw), "<!--")) {
      stripped = std::string(raw);
      for (std::size_t open; (open = stripped.find("<!--")) != std::string::npos;) {
        const std::size_t close = stripped.find("-->", open);
        if (close == std::string::npos)
          break;
        stripped.erase(open, close + 3 - open);
      }
      raw = stripped;
    }
    const std::string_view line = trim(raw);
    // HTML comments hide text from readers.
    if (in_comment) {
      if (line.find("-->") != std::string_view::npos)
        in_comment = false;
      continue;
    }
    if (starts_with(line, "<!--")) {
      flush();
      in_comment = line.find("-->") == std::string_view::npos;
      continue;
    }
    // Fenced code: ``` or ~~~, closed by the same fence.
    if (starts_with(line, "```") || starts_with(line, "~~~")) {
      if (!in_fence) {
        flush();
        in_fence = true;
        fence = std::string(line.substr(0, 3));
      } else if (starts_with(line, fence)) {
        in_fence = false;
      }
      continue;
    }
    if (in_fence) {
      add_code_line(raw, number);
      continue;
    }
    // RST literal blocks: an indented block after "::" or ".. code-block::".
    if (in_rst_literal) {
      if (line.empty())
        continue;
      if (raw.front() == ' ' || raw.front() == '\t') {
        add_code_line(raw, number);
        continue;
      }
      in_rst_literal = false;
    }
    if (line.empty()) {
      flush();
      continue;
    }
    // Markdown ATX heading.
    if (line.front() == '#') {
      const std::size_t level = line.find_first_not_of('#');
      if (level != std::string_view::npos && level <= 6 && line[level] == ' ') {
        open_heading(static_cast<int>(level), std::string(trim(line.substr(level))), number,
                     first_column(raw));
        continue;
      }
    }
    // Setext / RST heading: this line underlined by the next.
    if (number < lines.line_count()) {
      const std::string_view next = trim(lines.line_text(number + 1));
      if (next.size() >= 3 && next.size() + 2 >= line.size() &&
          std::all_of(next.begin(), next.end(), [&](char c) { return c == next.front(); }) &&
          std::string_view("=-~^*+#").find(next.front()) != std::string_view::npos) {
        const int level = next.front() == '=' ? 1 : next.front() == '-' ? 2 : 3;
        open_heading(level, std::string(line), number, first_column(raw));
        ++number;
        continue;
      }
    }
    if (starts_with(line, ".. code") || starts_with(line, ".. sourcecode") ||
        (ends_with(line, "::") && !starts_with(line, ".. "))) {
      flush();
      in_rst_literal = true;
      if (!starts_with(line, ".. ")) { // "Install with::" is prose, then code follows
        paragraph.text = std::string(line.substr(0, line.size() - 1));
        paragraph.line_starts.push_back({0, number, first_column(raw)});
        flush();
      }
      continue;
    }
    if (starts_with(line, ".. ")) // other RST directives and comments
      continue;
    // Indented code (4 spaces) outside lists counts as code.
    if (paragraph.text.empty() && starts_with(raw, "    ")) {
      add_code_line(raw, number);
      continue;
    }
    // List items and table rows start a segment of their own.
    const bool list_item = search_at_start(std::string(line.substr(0, 6)), exact("^([-*+]|\\d+[.)])\\s"));
    if (list_item || line.front() == '|')
      flush();
    if (paragraph.text.empty())
      paragraph.list_item = list_item;
    if (!paragraph.text.empty())
      paragraph.text.push_back(' ');
    paragraph.line_starts.push_back({paragraph.text.size(), number, first_column(raw)});
    paragraph.text.append(line);
    if (line.front() == '|')
      flush();
  }
  flush();
  return segments;
}

// Sentences of a prose segment as [begin, end) offsets: a sentence ends at
// . ! ? followed by a space and not inside a version number ("CUDA 11.8").
std::vector<std::pair<std::size_t, std::size_t>> sentences(const std::string &text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '.' || c == '!' || c == '?') && i + 1 < text.size() && text[i + 1] == ' ') {
      // "e.g. " and "i.e. " do not end sentences.
      if (i >= 3 && (text.compare(i - 3, 4, "e.g.") == 0 || text.compare(i - 3, 4, "i.e.") == 0))
        continue;
      out.push_back({begin, i + 1});
      begin = i + 2;
    }
  }
  if (begin < text.size())
    out.push_back({begin, text.size()});
  return out;
}

bool has_cue(const std::string &sentence, const std::string &lower) {
  return contains_any(lower, {"requir",
                              "need",
                              "must",
                              "prerequisite",
                              "depend",
                              "tested on",
                              "tested with",
                              "only works",
                              "only runs",
                              "only support",
                              "at least",
                              "minimum",
                              "min.",
                              "or higher",
                              "or later",
                              "or newer",
                              "or above",
                              "or greater",
                              "or better",
                              "recommend",
                              "install",
                              "compatible",
                              "expect",
                              "make sure",
                              "ensure",
                              "want",
                              ">=",
                              "≥",
                              "+",
                              "supported gpu",
                              "supported hardware",
                              "supported device",
                              "use ",
                              "uses ",
                              "run on",
                              "runs on",
                              "running on"}) &&
         search(sentence,
                icase("requir|\\bneed|\\bmust\\b|prerequisite|depend|tested (on|with)|"
                      "only (works|runs|supports?)|at least|minimum|\\bmin\\.|or (higher|later|newer|above|"
                      "greater|better)|recommend|\\binstall|compatible|expects?\\b|make sure|ensure|"
                      "you('ll| will) want|>=|≥|\\+ |\\+$|\\+\\)|\\bsupported (gpu|hardware|device)|"
                      "\\buses? (a|an|one|\\d)|\\brun(s|ning)? on\\b"));
}

// A sentence (or code line) to classify, with its lower-cased copy for the
// literal guards of case-insensitive patterns.
class Sentence {
public:
  Sentence(const std::string &sentence_text, bool requirement_section)
      : text(sentence_text), lower(to_lower(sentence_text)), requirement_section_(requirement_section) {}
  const std::string &text;
  const std::string lower;
  // Whether the lower-cased sentence contains one of `words`.
  bool has(std::initializer_list<std::string_view> words) const { return contains_any(lower, words); }
  // A requirements section or a requirement cue: worked out once, and only
  // when a pattern that needs it has matched its literals.
  bool context() const {
    if (!context_)
      context_ = requirement_section_ || has_cue(text, lower);
    return *context_;
  }

private:
  bool requirement_section_;
  mutable std::optional<bool> context_;
};

struct Match {
  std::string klass;
  std::string value;
  std::size_t offset = 0; // in the sentence
  std::size_t length = 0;
  bool command = false; // an install spec or index URL: counts inside `inline code` too
};

void find_cuda_toolkit(const Sentence &sentence, bool code, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  if (!sentence.has({"cuda"}))
    return;
  // Install specs are requirements by themselves, in code and in prose.
  if (sentence.has({"cudatoolkit", "cuda-toolkit", "pytorch-cuda", "cuda-version", "cuda-runtime"}))
    for (auto it = std::sregex_iterator(
             s.begin(), s.end(),
             icase("\\b(cudatoolkit|cuda-toolkit|pytorch-cuda|cuda-version|cuda-runtime)\\s*(==|>=|=|~=)\\s*"
                   "['\"]?(\\d{1,2}\\.\\d{1,2})"));
         it != std::sregex_iterator(); ++it)
      out.push_back({"cuda-toolkit", (*it)[3], static_cast<std::size_t>(it->position(0)),
                     static_cast<std::size_t>(it->length(0)), true});
  if (code || !sentence.context())
    return;
  for (auto it = std::sregex_iterator(
           s.begin(), s.end(),
           icase("\\bcuda(\\s*toolkit)?(\\s*version)?[\\s:=|-]*(>=|>|==|=|≥)?\\s*v?(\\d{1,2})(\\.\\d{1,2})?"
                 "(\\.\\d+)?(?!\\w|\\.\\d)"));
       it != std::sregex_iterator(); ++it) {
    const int major = std::stoi((*it)[4]);
    if (major < 7 || major > 13) // CUDA releases run from 7.0 to 13.x
      continue;
    out.push_back({"cuda-toolkit", std::string((*it)[4]) + std::string((*it)[5]),
                   static_cast<std::size_t>(it->position(0)), static_cast<std::size_t>(it->length(0))});
  }
}

void find_driver(const Sentence &sentence, bool code, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  if (!sentence.has({"driver"}))
    return;
  if (code) {
    std::smatch m;
    if (sentence.has({"nvidia-driver-"}) && std::regex_search(s, m, icase("nvidia-driver-(\\d{3})\\b")))
      out.push_back({"nvidia-driver", m[1], static_cast<std::size_t>(m.position(0)),
                     static_cast<std::size_t>(m.length(0))});
    return;
  }
  std::smatch m;
  if (std::regex_search(
          s, m,
          icase("\\b(nvidia\\s+)?(gpu\\s+)?drivers?(\\s+version)?\\s*(>=|>|==|=|≥|:|of|version)?\\s*"
                "(r|v)?(\\d{3}(\\.\\d{1,3}){0,2})\\b")) &&
      (m[1].matched || search(s, icase("nvidia|cuda|gpu"))))
    out.push_back({"nvidia-driver", m[6], static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0))});
}

void find_gpu_model(const Sentence &sentence, bool code, std::vector<Match> &out) {
  if (code)
    return;
  const std::string &s = sentence.text;
  std::smatch m;
  // Architecture flags and compute capability are requirements by themselves.
  if (sentence.has({"sm_", "compute_"}) &&
      std::regex_search(s, m, exact("\\b(sm_\\d{2,3}a?|compute_\\d{2,3})\\b")))
    out.push_back(
        {"gpu-model", m[1], static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0))});
  if (sentence.has({"compute capabilit"}) &&
      std::regex_search(s, m, icase("compute capabilit(y|ies)\\s*(of|>=|≥|:)?\\s*(\\d{1,2}\\.\\d)")))
    out.push_back({"gpu-model", "compute capability " + std::string(m[3]),
                   static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0))});
  // Every name in the pattern below contains one of these.
  if (!contains_any(s, {"A10", "A30", "A40", "A60", "A80", "H10", "H20", "H80", "B10", "B20", "V10", "P10",
                        "P40", "T4", "L4", "RTX", "GTX", "TITAN", "Titan"}) ||
      !sentence.context())
    return;
  if (std::regex_search(
          s, m,
          exact("\\b(A100|A800|H100|H800|H200|B100|B200|GB200|V100|P100|P40|T4|A10G?|A30|A40|A6000|L4|L40S?|"
                "RTX ?A?\\d{4}( ?Ti)?|GTX ?\\d{3,4}( ?Ti)?|TITAN ?(RTX|Xp|X|V)|Titan ?(RTX|Xp|X|V))\\b")))
    out.push_back(
        {"gpu-model", m[1], static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0))});
}

void find_vram(const Sentence &sentence, bool code, std::vector<Match> &out) {
  if (code)
    return;
  const std::string &s = sentence.text;
  const bool memory_word =
      sentence.has({"gpu", "vram", "video memory", "graphics memory", "gb"}) &&
      search(s, icase("vram|gpu memory|gpu ram|video memory|graphics memory|memory on (the|your|each|a) gpu|"
                      "gpus? with|per gpu|gpu "
                      "\\(|\\d\\s*gb\\s*(of\\s+)?(gpu|vram)|\\d\\s*gb\\s+(A100|H100|V100|A6000|RTX|GPU)|"
                      "(a100|a800|h100|h200|v100|a6000|a40|l40s?|gpu)s?\\s*\\(\\s*\\d+\\s*gb"));
  if (!memory_word)
    return;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), icase("(\\d{1,4}(\\.\\d+)?)\\s*(GB|GiB|G)\\b"));
       it != std::sregex_iterator(); ++it) {
    const std::size_t at = static_cast<std::size_t>(it->position(0));
    const std::string before = s.substr(at >= 25 ? at - 25 : 0, at >= 25 ? 25 : at);
    // "reduces GPU memory by 4 GB" states a saving, not a need.
    if (search(before, icase("\\bby\\s*$|sav|reduc|less|lower|fewer|frees?\\b")))
      continue;
    if (!sentence.context() && !search(s, icase("\\buses?|\\bconsum|\\btakes?\\b|\\boccup")))
      continue;
    out.push_back({"vram", std::string((*it)[1]) + " GB", at, static_cast<std::size_t>(it->length(0))});
    break;
  }
}

void find_cuda_index(const Sentence &sentence, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  std::smatch m;
  if (!sentence.has({"cu"}))
    return;
  if (sentence.has({"download.pytorch.org/whl/"}) &&
      std::regex_search(s, m, icase("download\\.pytorch\\.org/whl/(nightly/)?(cu\\d{2,3})\\b")))
    out.push_back({"cuda-index", m[2], static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0)), true});
  else if (sentence.has({"pip install", "pip3 install", "index-url", "find-links", "-f", "/whl/"}) &&
           sentence.has({"+cu", "/cu"}) &&
           search(s, icase("pip3? install|index-url|find-links|\\s-f\\s|/whl/")) &&
           std::regex_search(s, m, icase("[+/](cu\\d{2,3})\\b")))
    out.push_back({"cuda-index", m[1], static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0)), true});
}

void find_linux_only(const Sentence &sentence, bool code, std::vector<Match> &out) {
  if (code)
    return;
  const std::string &s = sentence.text;
  std::smatch m;
  if (sentence.has({"linux"}) &&
      std::regex_search(
          s, m,
          icase("\\blinux[- ]only\\b|\\bonly (been )?(supported|tested|works?|runs?|available|"
                "supports?)( on| under)? linux\\b|\\brequires? (a )?linux\\b|\\blinux is required")))
    out.push_back({"linux-only", "Linux only", static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0))});
  else if (sentence.has({"mac", "os x", "osx", "apple"}) &&
           std::regex_search(
               s, m,
               icase("(not|n't|never)( been| be| yet)? (officially )?(supported|work|run|tested|available)"
                     "( on| under| for| with)? (mac ?os|os ?x|macs?|apple|windows (or|and|/) mac ?os)\\b|"
                     "\\b(mac ?os|os ?x|macs?|apple silicon)( and windows)?( is| are)? (not|un)supported|"
                     "\\bno (mac ?os|mac) support")))
    out.push_back({"linux-only", "macOS not supported", static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0))});
}

// True when `text` names a Mac in any spelling, as a word.
bool mentions_mac(std::string_view text) {
  const std::string lower = to_lower(std::string(text.substr(0, 1u << 20)));
  for (const char *word : {"macos", "mac os", "osx", "os x", "apple", "darwin", "mps", "macbook", "mac"}) {
    const std::string_view needle(word);
    for (std::size_t at = lower.find(needle); at != std::string::npos; at = lower.find(needle, at + 1)) {
      const bool start = at == 0 || !std::isalnum(static_cast<unsigned char>(lower[at - 1]));
      const std::size_t after = at + needle.size();
      const bool end = after >= lower.size() || !std::isalnum(static_cast<unsigned char>(lower[after]));
      if (start && end)
        return true;
    }
  }
  return false;
}

// A bare list item naming Linux or an NVIDIA GPU under a requirements
// heading or lead-in ("Core requirements:\n- Linux\n- NVIDIA GPU").
void find_listed_platform(const Sentence &sentence, bool requirement_list, std::vector<Match> &out) {
  if (!requirement_list)
    return;
  const std::string &s = sentence.text;
  std::smatch m;
  if (sentence.has({"linux", "ubuntu"}) &&
      search_at_start(s, icase("^\\s*(([-*+]|\\d+[.)])\\s+)?(\\*\\*|__)?(linux|ubuntu)\\b"), &m) &&
      s.size() < 120 && !mentions_mac(s)) // "Linux or macOS with Python 3.8+"
    out.push_back({"linux-only", "Linux in the requirements list", static_cast<std::size_t>(m.position(4)),
                   static_cast<std::size_t>(m.length(4))});
  if (sentence.has({"gpu"}) &&
      std::regex_search(s, m, icase("\\b(nvidia|cuda[- ](capable|enabled|compatible))\\s+gpus?\\b")))
    out.push_back({"gpu-model", "an NVIDIA GPU", static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0))});
}

// Build instructions that target Intel Macs: Apple silicon needs arm64.
void find_x86_arch(const Sentence &sentence, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  std::smatch m;
  if (sentence.has({"x86_64"}) &&
      std::regex_search(s, m,
                        icase("archflags\\s*=\\s*['\"]?-arch\\s+x86_64['\"]?|\\barch\\s+-x86_64\\b|"
                              "cmake_osx_architectures\\s*=\\s*['\"]?x86_64(?![;\\w]*arm64)")))
    out.push_back({"x86-arch", m.str(0), static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0)), true});
}

// Example code that puts models or tensors on CUDA with no MPS branch.
void find_cuda_example(const Sentence &sentence, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  if (s.find("cuda") == std::string::npos || (sentence.has({"mps"}) && search(s, icase("\\bmps\\b"))))
    return;
  std::smatch m;
  // The CUDA-else-CPU choice first: it contains a hard-coded "cuda" too.
  if (std::regex_search(s, m, exact("['\"]cuda(:\\d+)?['\"]\\s+if\\s+[\\w.]*cuda\\.is_available\\(\\)"))) {
    out.push_back({"cuda-example", m.str(0) + " else CPU", static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0)), true});
    return;
  }
  if (std::regex_search(s, m,
                        exact("\\.cuda\\(\\s*(\\d+|non_blocking\\s*=\\s*\\w+)?\\s*\\)|"
                              "\\.to\\(\\s*(device\\s*=\\s*)?['\"]cuda(:\\d+)?['\"]\\s*\\)?|"
                              "\\bdevice(_map)?\\s*=\\s*['\"]cuda(:\\d+)?['\"]|"
                              "torch\\.device\\(\\s*['\"]cuda")))
    out.push_back({"cuda-example", m.str(0), static_cast<std::size_t>(m.position(0)),
                   static_cast<std::size_t>(m.length(0)), true});
}

// A documented command that starts one process per GPU on several GPUs.
void find_multi_gpu_command(const Sentence &sentence, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  std::smatch m;
  // Device lists name several GPUs: `--devices 0,1`, `--gpus 0,1,2,3`,
  // `--gpu_ids 0,1` (Lightning's `--gpus 0,` with a trailing comma is one).
  if (!sentence.has({"--nproc", "dist", "--num", "--gpu", "--multi", "--device"}) ||
      !std::regex_search(
          s, m,
          icase("--nproc[_-]per[_-]node[= ]+['\"]?(\\d+)|[\\w./-]*dist[\\w-]*\\.sh\\s+(\\d+)\\b|"
                "--num[_-]gpus[= ]+(\\d+)|--gpus[= ]+(\\d+)\\b(?!,)|(--multi[_-]gpu)\\b|"
                "--(devices?|gpus|gpu[_-]ids)[= ]+['\"]?(\\d+(,\\s*\\d+)+)")))
    return;
  for (int group : {1, 2, 3, 4})
    if (m[group].matched && std::stoi(m[group].str().substr(0, 4)) < 2)
      return;
  out.push_back({"multi-gpu-command", m.str(0), static_cast<std::size_t>(m.position(0)),
                 static_cast<std::size_t>(m.length(0)), true});
}

// Mixed precision in fp16 switched on in a documented recipe.
void find_fp16_example(const Sentence &sentence, std::vector<Match> &out) {
  const std::string &s = sentence.text;
  std::smatch m;
  if (sentence.has({"amp", "fp16", "precision"}) &&
      std::regex_search(s, m,
                        icase("\\b(use_)?(amp|fp16)\\s*=\\s*true\\b|mixed_precision\\s*=\\s*['\"]fp16|"
                              "(^|\\s)--(amp|fp16)\\b(?![-_=])|--mixed[_-]precision[= ]+['\"]?fp16|"
                              "\\bprecision\\s*=\\s*['\"]?16(-mixed)?\\b")))
    out.push_back({"fp16-example", trim(m.str(0)).empty() ? m.str(0) : std::string(trim(m.str(0))),
                   static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0)), true});
}

// A heading for Linux installation in a document that never mentions a Mac.
bool is_linux_heading(const std::string &title) {
  return title.size() < 60 && contains_any(to_lower(title), {"linux"}) &&
         search_at_start(title, icase("^\\W*((install(ing|ation)?|build(ing)?|setup|set up)\\s+"
                                      "(on|for|under)\\s+)?linux\\b"));
}
// Matches reported once per file: the first, with the count of the others.
bool reported_once_per_file(const std::string &klass) {
  return klass == "cuda-example" || klass == "multi-gpu-command" || klass == "fp16-example";
}

// What only code shows: examples that pick CUDA, multi-GPU commands and
// fp16 recipes; `offset` places the code in its sentence.
void find_in_code(const Sentence &code, std::size_t offset, std::vector<Match> &out) {
  std::vector<Match> found;
  find_cuda_example(code, found);
  find_multi_gpu_command(code, found);
  find_fp16_example(code, found);
  for (Match &match : found) {
    match.offset += offset;
    out.push_back(std::move(match));
  }
}

// A command that starts with a launcher, after a `$ ` prompt and
// environment assignments: `python train.py`, `CUDA_VISIBLE_DEVICES=0
// torchrun ... x.py`, `./run.sh`. Matched as a prefix: no pattern runs over
// the whole line.
bool starts_with_launcher(const std::string &command) {
  static const std::regex launcher(
      "^\\s*(\\$\\s+)?(\\w+=\\S*\\s+)*((python3?|torchrun|accelerate|deepspeed|bash|sh)\\b|\\./)");
  return std::regex_search(command, launcher);
}

// The `inline code` spans of a sentence that are commands, with their offsets.
std::vector<std::pair<std::size_t, std::string>> inline_commands(const std::string &sentence) {
  std::vector<std::pair<std::size_t, std::string>> commands;
  for (std::size_t open = sentence.find('`'); open != std::string::npos;) {
    const std::size_t close = sentence.find('`', open + 1);
    if (close == std::string::npos)
      break;
    std::string span = sentence.substr(open + 1, close - open - 1);
    if (starts_with_launcher(span))
      commands.emplace_back(open + 1, std::move(span));
    open = sentence.find('`', close + 1);
  }
  return commands;
}

// A launch command as the `shell` fact a shell script's line gives: the
// command word, its arguments and a `python -m` module, so that entry-point
// discovery finds the scripts a README runs (assess/entry_points.h).
// `offset` is where the command, one that starts_with_launcher, starts in
// the segment's text.
std::optional<Fact> launch_fact(const Segment &segment, std::size_t offset, const std::string &command) {
  const std::optional<LaunchCommand> launch = read_launch_command(command);
  if (!launch)
    return std::nullopt;
  Fact fact;
  fact.kind = fact_kind::Shell;
  fact.name = launch->name;
  const auto [line, column] = position_at(segment, offset + launch->word_offset);
  fact.span = Span{line, column, line, column + static_cast<std::uint32_t>(launch->word.size())};
  const std::string whole(trim(command));
  fact.set_attribute("value", whole);
  fact.set_attribute("line", whole);
  set_launch_attributes(fact, *launch);
  return fact;
}

// True when `offset` lies inside "double quotes" or `inline code` in prose:
// quoted text reports what someone else says ("at least 24 GB of GPU memory"
// as an example in documentation), not what this project requires. Install
// specs and wheel indexes are exempt: commands are often inline code.
bool inside_quotation(const std::string &sentence, std::size_t offset) {
  bool in_double = false, in_code = false;
  for (std::size_t i = 0; i < offset && i < sentence.size(); ++i) {
    if (sentence[i] == '`')
      in_code = !in_code;
    else if (sentence[i] == '"' && !in_code)
      in_double = !in_double;
  }
  return in_double || in_code;
}

std::string quote(const std::string &sentence) {
  std::string_view text = trim(sentence);
  // A list marker is layout, not part of the sentence.
  for (std::string_view marker : {"- ", "* ", "+ "})
    if (starts_with(text, marker))
      text = trim(text.substr(marker.size()));
  std::string out(text);
  if (out.size() > 300)
    out = out.substr(0, 297) + "...";
  return sanitize_utf8(out);
}

} // namespace

FileFacts extract_prose_text(std::string_view text, const std::string &path) {
  FileFacts facts;
  facts.mode = "lexical";
  const bool changelog_file = is_changelog_file(path);
  const LineIndex file_lines(text);
  std::set<std::tuple<std::string, std::string, std::uint32_t>> seen;
  // Classes reported once per file: the fact of the first match, and how many
  // more lines matched.
  std::map<std::string, std::pair<std::size_t, std::size_t>> once_per_file; // class -> (fact index, more)
  const bool linux_only_install = !mentions_mac(text);
  const auto add_fact = [&](const Segment &segment, std::size_t offset, const Match &match,
                            const std::string &sentence) {
    const auto [line, column] = position_at(segment, offset);
    if (!seen.insert({match.klass, match.value, line}).second)
      return;
    if (reported_once_per_file(match.klass)) {
      auto [it, first] = once_per_file.try_emplace(match.klass, facts.facts.size(), 0);
      if (!first) {
        ++it->second.second;
        return;
      }
    }
    Fact fact;
    fact.kind = fact_kind::DocRequirement;
    fact.name = match.klass;
    fact.span.line = line;
    fact.span.column = column;
    fact.span.end_line = line;
    // A match that runs past its line (a sentence joined from several) ends
    // at the end of the line.
    fact.span.end_column = std::min(column + static_cast<std::uint32_t>(match.length),
                                    static_cast<std::uint32_t>(file_lines.line_text(line).size() + 1));
    fact.set_attribute("value", match.value);
    fact.set_attribute("sentence", quote(sentence));
    fact.set_attribute("in_code", segment.code ? "true" : "false");
    fact.set_attribute("more", "");
    facts.facts.push_back(std::move(fact));
  };
  for (const Segment &segment : segment_text(text, changelog_file)) {
    if (segment.heading) {
      if (linux_only_install && segment.requirement_section && is_linux_heading(segment.text))
        add_fact(segment, 0,
                 {"linux-only", "installation for Linux and no word on macOS", 0, segment.text.size()},
                 segment.text);
      continue;
    }
    const auto ranges = segment.code
                            ? std::vector<std::pair<std::size_t, std::size_t>>{{0, segment.text.size()}}
                            : sentences(segment.text);
    for (const auto &[begin, end] : ranges) {
      const std::string sentence = segment.text.substr(begin, std::min(end - begin, kMaxSentence));
      if (trim(sentence).empty() || is_changelog_line(sentence))
        continue;
      const Sentence classified(sentence, segment.requirement_section);
      std::vector<Match> matches;
      find_cuda_index(classified, matches);
      find_cuda_toolkit(classified, segment.code, matches);
      find_driver(classified, segment.code, matches);
      find_gpu_model(classified, segment.code, matches);
      find_vram(classified, segment.code, matches);
      find_linux_only(classified, segment.code, matches);
      find_listed_platform(classified, segment.list_item && segment.requirement_section, matches);
      find_x86_arch(classified, matches);
      // The launch commands here: a code line that starts with a launcher, or
      // the inline code spans of a sentence that do. A command written as
      // `inline code` ("run `python main.py --gpus 0,1` to train on two
      // GPUs") is code as much as a fenced block; other inline code names
      // things.
      std::vector<std::pair<std::size_t, std::string>> commands;
      if (!segment.code)
        commands = inline_commands(sentence);
      else if (starts_with_launcher(sentence))
        commands.emplace_back(0, sentence);
      if (segment.code)
        find_in_code(classified, 0, matches);
      else
        for (const auto &[offset, command] : commands)
          find_in_code(Sentence(command, segment.requirement_section), offset, matches);
      for (const auto &[offset, command] : commands)
        if (auto fact = launch_fact(segment, begin + offset, command))
          facts.facts.push_back(std::move(*fact));
      for (const Match &match : matches) {
        if (!segment.code && !match.command && inside_quotation(sentence, match.offset))
          continue;
        add_fact(segment, begin + match.offset, match, sentence);
      }
    }
  }
  for (const auto &[klass, first] : once_per_file)
    if (first.second > 0)
      facts.facts[first.first].set_attribute("more", " (and " + counted(first.second, "more line") +
                                                         " of this file)");
  return facts;
}

void register_prose_frontends(ExtractorTable &table) {
  table.add(FileKind::Prose, [](const SourceFile &file, const ExtractOptions &) {
    if (looks_binary(file.text)) {
      FileFacts facts;
      facts.mode = "skipped";
      facts.diagnostics.push_back({DiagnosticLevel::Note, file.path, 0, "binary", "binary file skipped"});
      return facts;
    }
    return extract_prose_text(file.text, file.path);
  });
  table.add(FileKind::Checkpoint, [](const SourceFile &file, const ExtractOptions &) {
    return checkpoint::extract_checkpoint(file.text, file.path, file.absolute_path, file.kind_guessed);
  });
  table.add(FileKind::ModelConfig, [](const SourceFile &file, const ExtractOptions &) {
    return extract_model_config(file.text, file.path);
  });
}

} // namespace mpsaudit
