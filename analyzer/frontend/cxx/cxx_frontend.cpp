#include "frontend/cxx/cxx_frontend.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/confined_file.h"
#include "core/text.h"
#include "frontend/cxx/ast_scan.h"
#include "frontend/cxx/fact_access.h"
#include "frontend/cxx/file_model.h"
#include "frontend/cxx/parse_budget.h"
#include "frontend/cxx/registration_pass.h"
#include "frontend/cxx/token_scan.h"
#include "frontend/cxx/vocabulary.h"

namespace mpsaudit {
namespace {

using cxx::SourceLanguage;

bool has_suffix(const std::string &path, std::string_view suffix) {
  if (path.size() < suffix.size())
    return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - suffix.size() + i])) != suffix[i])
      return false;
  return true;
}

SourceLanguage language_of(const SourceFile &file) {
  if (file.kind == FileKind::Cuda || has_suffix(file.path, ".cu") || has_suffix(file.path, ".cuh"))
    return SourceLanguage::Cuda;
  if (file.kind == FileKind::Metal)
    return SourceLanguage::Metal;
  if (has_suffix(file.path, ".mm") || has_suffix(file.path, ".m"))
    return SourceLanguage::ObjCxx;
  if (has_suffix(file.path, ".c"))
    return SourceLanguage::C;
  // Headers shared with .cu files often hold kernels: parse those as CUDA.
  if (file.text.find("__global__") != std::string::npos || file.text.find("<<<") != std::string::npos)
    return SourceLanguage::Cuda;
  return SourceLanguage::Cxx;
}

void sort_unique(std::vector<std::uint32_t> &lines) {
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
}

// AST findings are authoritative; the token path adds what clang dropped
// (declarations it could not build, launches inside unexpanded macros).
void merge_ast_into(cxx::FileModel &model, cxx::FileModel &&ast) {
  for (auto &region : ast.regions) {
    auto same = std::find_if(model.regions.begin(), model.regions.end(), [&](const auto &r) {
      // By line, not name: a macro-made name (KERNEL(name)) differs in the tokens.
      return r.is_kernel == region.is_kernel && r.line == region.line;
    });
    if (same != model.regions.end())
      *same = std::move(region);
    else
      model.regions.push_back(std::move(region));
  }
  for (auto &launch : ast.launches) {
    auto same = std::find_if(model.launches.begin(), model.launches.end(),
                             [&](const auto &l) { return l.line == launch.line; });
    if (same != model.launches.end()) {
      if (launch.config.empty())
        launch.config = same->config;
      if (launch.kernel == "?")
        launch.kernel = same->kernel;
      *same = std::move(launch);
    } else {
      model.launches.push_back(std::move(launch));
    }
  }
  for (auto &site : ast.asm_sites) {
    auto same = std::find_if(model.asm_sites.begin(), model.asm_sites.end(),
                             [&](const auto &s) { return s.line == site.line; });
    if (same != model.asm_sites.end())
      *same = std::move(site);
    else
      model.asm_sites.push_back(std::move(site));
  }
  auto append = [](std::vector<std::uint32_t> &into, const std::vector<std::uint32_t> &from) {
    into.insert(into.end(), from.begin(), from.end());
  };
  append(model.shared_lines, ast.shared_lines);
  append(model.double_lines, ast.double_lines);
  append(model.barrier_lines, ast.barrier_lines);
}

} // namespace

// ------------------------------------------------- when clang can add nothing
//
// merge_ast_into reads these parts of the AST model (ast_scan.cpp's Collector
// fills them), and each needs a token that clang sees in the main file, either
// written there or coming from a macro of a header the file includes:
//   regions       a body with CUDAGlobalAttr or an explicit CUDADeviceAttr:
//                 __global__, __device__ (the shim's macros of those names),
//                 __attribute__((global|device)) or __declspec(__global__)
//                 (implicit attributes, as from `#pragma clang
//                 force_cuda_host_device` or on lambdas, do not count)
//   launches      CUDAKernelCallExpr: `<<<`
//   asm_sites     GCCAsmStmt: asm, __asm, __asm__
//   shared_lines  CUDASharedAttr: __shared__, __attribute__((shared)), ...
//   double_lines, barrier_lines   read only inside regions (build_facts)
// Regions, launches and shared memory exist in CUDA mode only: in C, C++ and
// Objective-C++ clang knows neither the CUDA attributes nor `<<<`, and the
// shim defines the keywords away. So when neither the file nor a macro
// definition in any header clang could open for it holds one of its
// language's words below, the AST model would be empty except for double
// lines outside any region, and the merged model equals the token model:
// clang is not run. (The rest of a header never reaches the model: the
// Collector skips whatever lies outside the main file.) Regions the token
// path found always go to clang, whose double lines and extents refine them.
// A compilation database can change the language, the include paths and the
// macros, so a file it covers always goes to clang.
namespace cxx {

const std::vector<std::string_view> &clang_evidence_words(bool cuda) {
  static const std::vector<std::string_view> any_language{"asm", "__asm", "__asm__"};
  static const std::vector<std::string_view> cuda_words{
      "asm", "__asm", "__asm__", "__global__", "__device__", "__shared__", "__attribute__", "__declspec"};
  return cuda ? cuda_words : any_language;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool contains_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(text[at - 1]);
    const bool ends = at + word.size() == text.size() || !is_identifier_char(text[at + word.size()]);
    if (starts && ends)
      return true;
  }
  return false;
}

bool has_clang_evidence(std::string_view text, bool cuda) {
  if (cuda && text.find("<<<") != std::string_view::npos)
    return true;
  const auto &words = clang_evidence_words(cuda);
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view word) { return contains_word(text, word); });
}

} // namespace cxx

namespace {

using cxx::attribute_or;
using cxx::last_component;

using cxx::has_clang_evidence;
using cxx::is_identifier_char;

// The first position from `at` on, before `end`, that is not a blank.
std::size_t after_blanks(std::string_view text, std::size_t at, std::size_t end) {
  while (at < end && (text[at] == ' ' || text[at] == '\t'))
    ++at;
  return at;
}

// The identifiers of `text`, comments and strings included (erring towards
// more names is erring towards clang).
void add_identifiers(std::string_view text, std::unordered_set<std::string_view> &names) {
  std::size_t at = 0;
  while (at < text.size()) {
    if (!is_identifier_char(text[at])) {
      ++at;
      continue;
    }
    const std::size_t start = at;
    while (at < text.size() && is_identifier_char(text[at]))
      ++at;
    if (!std::isdigit(static_cast<unsigned char>(text[start])))
      names.insert(text.substr(start, at - start));
  }
}

// Every #define of a header: the macro's name, and the directive's logical
// line (continuation lines included). A name defined twice (in two branches
// of an #if, say) keeps both definitions, each with its own parameters.
using MacroDefinitions = std::unordered_map<std::string, std::vector<std::string>>;

void add_macro_definitions(std::string_view text, MacroDefinitions &macros) {
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t at = after_blanks(text, line_start, text.size());
    bool is_define = false;
    if (at < text.size() && text[at] == '#') {
      at = after_blanks(text, at + 1, text.size());
      is_define = text.compare(at, 6, "define") == 0;
      at += is_define ? 6 : 0;
    }
    // The logical line: physical lines joined by a trailing backslash.
    std::size_t line_end = line_start;
    for (;;) {
      line_end = text.find('\n', line_end);
      if (line_end == std::string_view::npos) {
        line_end = text.size();
        break;
      }
      std::size_t last = line_end;
      while (last > line_start && (text[last - 1] == '\r' || text[last - 1] == ' ' || text[last - 1] == '\t'))
        --last;
      if (last == line_start || text[last - 1] != '\\')
        break;
      ++line_end;
    }
    if (is_define) {
      const std::size_t name_start = at = after_blanks(text, at, line_end);
      while (at < line_end && is_identifier_char(text[at]))
        ++at;
      macros[std::string(text.substr(name_start, at - name_start))].emplace_back(
          text.substr(line_start, line_end - line_start));
    }
    line_start = line_end + 1;
  }
}

// The parameters of a function-like macro's definition line (with
// __VA_ARGS__ for `...`); none for an object-like one.
std::vector<std::string_view> macro_parameters(std::string_view definition) {
  std::vector<std::string_view> parameters;
  std::size_t at = definition.find("define");
  if (at == std::string_view::npos)
    return parameters;
  at = after_blanks(definition, at + 6, definition.size());
  while (at < definition.size() && is_identifier_char(definition[at]))
    ++at;
  if (at >= definition.size() || definition[at] != '(') // a space before '(' makes it object-like
    return parameters;
  const std::size_t close = definition.find(')', at);
  const std::string_view list =
      definition.substr(at + 1, close == std::string_view::npos ? 0 : close - at - 1);
  std::unordered_set<std::string_view> names;
  add_identifiers(list, names);
  parameters.assign(names.begin(), names.end());
  if (list.find("...") != std::string_view::npos)
    parameters.emplace_back("__VA_ARGS__");
  return parameters;
}

// The names that token pasting (`##`) in a macro's definition can form,
// as far as the definition says: a chain whose first piece is written out
// names macros that begin with it, one whose last piece is, macros that end
// with it. A chain that begins and ends with parameters can name any macro
// (`any`). A paste with no identifier on its left (GNU's `, ## __VA_ARGS__`)
// forms no name.
struct PastedNames {
  std::vector<std::string_view> prefixes, suffixes;
  bool any = false;
};

PastedNames pasted_names(std::string_view definition) {
  PastedNames pasted;
  const std::vector<std::string_view> parameters = macro_parameters(definition);
  const auto written = [&](std::string_view piece) {
    return !piece.empty() && !std::isdigit(static_cast<unsigned char>(piece.front())) &&
           std::find(parameters.begin(), parameters.end(), piece) == parameters.end();
  };
  for (std::size_t paste = definition.find("##"); paste != std::string_view::npos;) {
    std::size_t end = paste;
    while (end > 0 && (definition[end - 1] == ' ' || definition[end - 1] == '\t'))
      --end;
    std::size_t begin = end;
    while (begin > 0 && is_identifier_char(definition[begin - 1]))
      --begin;
    const std::string_view first = definition.substr(begin, end - begin);
    std::string_view last;
    std::size_t after = paste;
    for (;;) { // the chain's pieces, to its last
      std::size_t at = after_blanks(definition, after + 2, definition.size());
      const std::size_t start = at;
      while (at < definition.size() && is_identifier_char(definition[at]))
        ++at;
      last = definition.substr(start, at - start);
      after = after_blanks(definition, at, definition.size());
      if (definition.compare(after, 2, "##") != 0)
        break;
    }
    if (first.empty()) {
      // no name formed
    } else if (written(first)) {
      pasted.prefixes.push_back(first);
    } else if (written(last)) {
      pasted.suffixes.push_back(last);
    } else {
      pasted.any = true;
    }
    paste = definition.find("##", after);
  }
  return pasted;
}

// Adds to `names` every macro whose name a paste of `definition` may form.
void add_pasted_macros(std::string_view definition, const MacroDefinitions &macros,
                       std::vector<std::string_view> &names) {
  const PastedNames pasted = pasted_names(definition);
  for (const auto &entry : macros) {
    const std::string_view name = entry.first;
    const bool formed = pasted.any ||
                        std::any_of(pasted.prefixes.begin(), pasted.prefixes.end(),
                                    [&](std::string_view piece) { return starts_with(name, piece); }) ||
                        std::any_of(pasted.suffixes.begin(), pasted.suffixes.end(),
                                    [&](std::string_view piece) { return ends_with(name, piece); });
    if (formed)
      names.push_back(name);
  }
}

// Past this many names looked at, following macros costs more than it
// saves (pastes are matched against every macro, a quadratic walk): ask clang.
constexpr std::size_t kMaxMacroNamesForGate = 4u << 20;

// Whether a macro that `text` can expand, directly, through other macros or
// through names they paste together, holds evidence. Only those reach the
// main file's AST: a header's other macros, and everything else in a header
// (its functions, its templates and their instantiations), sit outside the
// main file, which the AST's Collector skips. True, erring towards clang,
// past kMaxMacroNamesForGate or the file's deadline.
bool expands_clang_evidence(std::string_view text, const MacroDefinitions &macros, bool cuda,
                            cxx::ParseBudget &budget) {
  std::unordered_set<std::string_view> names;
  add_identifiers(text, names);
  std::vector<std::string_view> pending(names.begin(), names.end());
  std::unordered_set<std::string_view> expanded;
  std::size_t looked_at = pending.size();
  while (!pending.empty()) {
    if (looked_at > kMaxMacroNamesForGate || !budget.check_time())
      return true;
    const std::string_view name = pending.back();
    pending.pop_back();
    const auto macro = macros.find(std::string(name));
    if (macro == macros.end() || !expanded.insert(name).second)
      continue;
    for (const std::string &definition : macro->second) {
      if (has_clang_evidence(definition, cuda))
        return true;
      std::unordered_set<std::string_view> used;
      add_identifiers(definition, used);
      pending.insert(pending.end(), used.begin(), used.end());
      looked_at += used.size();
      if (definition.find("##") != std::string::npos) {
        if ((looked_at += macros.size()) > kMaxMacroNamesForGate)
          return true;
        add_pasted_macros(definition, macros, pending);
      }
    }
  }
  return false;
}

// The #include, #include_next and #import directives of `text`, whether or
// not they are live. False when one names its header through a macro.
bool read_includes(std::string_view text, std::vector<cxx::IncludedHeader> &includes) {
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos)
      line_end = text.size();
    std::size_t at = after_blanks(text, line_start, line_end);
    if (at < line_end && text[at] == '#') {
      const std::size_t word_start = at = after_blanks(text, at + 1, line_end);
      while (at < line_end && is_identifier_char(text[at]))
        ++at;
      const std::string_view directive = text.substr(word_start, at - word_start);
      if (directive == "include" || directive == "include_next" || directive == "import") {
        std::optional<cxx::IncludedHeader> included = cxx::included_header(text.substr(at, line_end - at));
        if (!included)
          return false; // computed: #include HEADER_MACRO
        includes.push_back(std::move(*included));
      }
    }
    line_start = line_end + 1;
  }
  return true;
}

// Past these, looking for evidence costs more than it saves: ask clang. A
// lookup is a path tried for an #include (a header of 16 MiB can hold a
// million of them, each a few system calls).
constexpr std::size_t kMaxHeadersForGate = 256;
constexpr std::size_t kMaxHeaderBytesForGate = 16u << 20;
constexpr std::size_t kMaxHeaderLookupsForGate = 65536;

// A header's bytes, as many as its size says and at most `limit`: a file
// that says it is regular but never ends (/proc/kmsg) or blocks is read no
// further than clang itself would read it. nullopt when it cannot be read or
// is larger than `limit`.
std::optional<std::string> read_header(const std::filesystem::path &path, std::uintmax_t limit) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::optional<std::string> text = read_stated_size(fd, limit);
  ::close(fd);
  return text;
}

// Whether clang could build a model that differs from the token model for
// `file` (see above). It reads the #defines of every header that the fixed
// command line could open (next to its includer, under the scan root, among
// clang's builtin headers), live or not, and asks whether the macros the file
// names, and those they name in turn, hold evidence. It errs towards clang
// when unsure.
bool clang_could_add_to(const SourceFile &file, SourceLanguage language, const cxx::FileModel &tokens,
                        const ExtractOptions &options, cxx::ParseBudget &budget) {
  namespace fs = std::filesystem;
  if (!tokens.regions.empty() || cxx::compilation_database_applies(options))
    return true;
  if (has_clang_evidence(file.text, language == SourceLanguage::Cuda))
    return true;
  std::vector<fs::path> angled_directories;
  if (!options.root.empty())
    angled_directories.emplace_back(options.root);
  for (const auto &directory : cxx::builtin_header_directories())
    angled_directories.emplace_back(directory);
  struct Pending {
    std::string text;
    fs::path directory; // the includer's, for quoted includes; empty if unknown
  };
  std::vector<Pending> pending{
      {file.text, file.absolute_path.empty() ? fs::path() : fs::path(file.absolute_path).parent_path()}};
  std::set<std::string> seen;
  std::size_t bytes = 0;
  std::size_t lookups = 0;
  MacroDefinitions macros;
  while (!pending.empty()) {
    if (!budget.check_time())
      return true;
    const Pending current = std::move(pending.back());
    pending.pop_back();
    std::vector<cxx::IncludedHeader> includes;
    if (!read_includes(current.text, includes))
      return true;
    for (const auto &include : includes) {
      std::vector<fs::path> candidates;
      if (include.quoted && !current.directory.empty())
        candidates.push_back(current.directory / include.name);
      for (const auto &directory : angled_directories)
        candidates.push_back(directory / include.name);
      for (const auto &candidate : candidates) {
        if (++lookups > kMaxHeaderLookupsForGate)
          return true;
        std::error_code error;
        if (!fs::is_regular_file(candidate, error))
          continue;
        const std::string key = fs::weakly_canonical(candidate, error).string();
        if (!seen.insert(error ? candidate.string() : key).second)
          continue;
        const std::optional<std::string> read = read_header(candidate, kMaxHeaderBytesForGate - bytes);
        if (!read)
          return true;
        std::string text = std::move(*read);
        bytes += text.size();
        if (seen.size() > kMaxHeadersForGate || bytes > kMaxHeaderBytesForGate)
          return true;
        add_macro_definitions(text, macros);
        pending.push_back({std::move(text), candidate.parent_path()});
      }
    }
  }
  return expands_clang_evidence(file.text, macros, language == SourceLanguage::Cuda, budget);
}

std::size_t count_in(const std::vector<std::uint32_t> &sorted_lines, std::uint32_t first,
                     std::uint32_t last) {
  const auto begin = std::lower_bound(sorted_lines.begin(), sorted_lines.end(), first);
  const auto end = std::upper_bound(sorted_lines.begin(), sorted_lines.end(), last);
  return static_cast<std::size_t>(end - begin);
}

// "mov.u32 %0, %%laneid;" -> "mov.u32"
std::string first_mnemonic(const std::string &text) {
  std::size_t begin = 0;
  while (begin < text.size() &&
         (std::isspace(static_cast<unsigned char>(text[begin])) || text[begin] == '{' ||
          text[begin] == '\\' || (text[begin] == 'n' && begin > 0 && text[begin - 1] == '\\')))
    ++begin;
  std::size_t end = begin;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ';' &&
         text[end] != '\\')
    ++end;
  return end > begin ? text.substr(begin, end - begin) : "asm";
}

Fact make_fact(std::string_view kind, std::string name, std::uint32_t line, std::uint32_t column,
               std::uint32_t end_column) {
  Fact fact;
  fact.kind = std::string(kind);
  fact.name = std::move(name);
  fact.span = Span{line, column, line, end_column};
  return fact;
}

// Whether a fact can sit on a CUDA-only path that a CPU alternative makes
// optional: everything the CUDA rules report, not the structure around it.
bool is_guardable(const Fact &fact) {
  namespace kind = cxx::kind;
  return fact.kind != kind::Include && fact.kind != kind::OpRegistration && fact.kind != kind::MetalPort &&
         fact.kind != kind::DeviceDispatch && fact.kind != kind::CxxFunction;
}

// The test and the CUDA arm of a dispatch with a CPU alternative only run
// for CUDA tensors (or in a CUDA build): `.is_cuda()` there routes MPS
// tensors to the CPU arm instead of rejecting them.
void guard_cpu_fallback_code(std::vector<Fact> &facts, const std::vector<cxx::SourceRange> &ranges) {
  if (ranges.empty())
    return;
  for (auto &fact : facts)
    if (fact.guard == Guard::None && is_guardable(fact) &&
        std::any_of(ranges.begin(), ranges.end(),
                    [&](const cxx::SourceRange &r) { return r.contains(fact.span); }))
      fact.guard = Guard::CpuFallback;
}

// Turns the merged model plus the token facts into the file's facts.
std::vector<Fact> build_facts(cxx::TokenScanResult &scan, cxx::FileModel &model) {
  namespace kind = cxx::kind;
  std::vector<Fact> facts = std::move(scan.facts);
  sort_unique(model.shared_lines);
  sort_unique(model.double_lines);
  sort_unique(model.barrier_lines);

  std::vector<std::uint32_t> warp_lines, atomic_lines, tensor_lines, asm_lines;
  for (const auto &fact : facts) {
    if (fact.kind == kind::WarpIntrinsic)
      warp_lines.push_back(fact.span.line);
    else if (fact.kind == kind::Atomic)
      atomic_lines.push_back(fact.span.line);
    else if (fact.kind == kind::TensorCore) {
      const std::string *via = fact.attribute("via");
      if (!via || *via != "include")
        tensor_lines.push_back(fact.span.line);
    }
  }

  for (const auto &site : model.asm_sites) {
    asm_lines.push_back(site.line);
    const std::string mnemonic = first_mnemonic(site.text);
    Fact fact = make_fact(kind::InlinePtx, mnemonic, site.line, site.column, site.end_column);
    fact.set_attribute("text", site.text.substr(0, 200));
    const bool tensor = cxx::ptx_uses_tensor_cores(site.text);
    fact.set_attribute("tensor_core", tensor ? "true" : "false");
    fact.set_attribute("origin", site.origin);
    facts.push_back(std::move(fact));
    if (tensor) {
      Fact core = make_fact(kind::TensorCore, "ptx:" + mnemonic, site.line, site.column, site.end_column);
      core.set_attribute("via", "inline-ptx");
      facts.push_back(std::move(core));
      tensor_lines.push_back(site.line);
    }
  }
  for (auto *lines : {&warp_lines, &atomic_lines, &tensor_lines, &asm_lines})
    std::sort(lines->begin(), lines->end());

  std::map<std::string, std::size_t> launches_by_kernel;
  for (const auto &launch : model.launches) {
    ++launches_by_kernel[last_component(launch.kernel)];
    Fact fact = make_fact(kind::KernelLaunch, launch.kernel, launch.line, launch.column, launch.end_column);
    fact.set_attribute("via", launch.via);
    if (!launch.config.empty())
      fact.set_attribute("config", launch.config);
    fact.set_attribute("origin", launch.origin);
    facts.push_back(std::move(fact));
  }

  for (const auto &region : model.regions) {
    Fact fact = make_fact(region.is_kernel ? kind::CudaKernel : kind::DeviceFunction, region.name,
                          region.line, region.column, region.end_column);
    const std::uint32_t first = region.body_begin_line;
    const std::uint32_t last = std::max(region.body_begin_line, region.body_end_line);
    fact.set_attribute("qualified_name", region.qualified_name);
    fact.set_attribute("device_lines", std::to_string(cxx::code_lines_between(scan, first, last)));
    fact.set_attribute("body_end_line", std::to_string(last));
    const std::size_t shared = count_in(model.shared_lines, first, last);
    fact.set_attribute("shared_memory", std::to_string(shared));
    fact.set_attribute("uses_shared_memory", shared > 0 ? "true" : "false");
    fact.set_attribute("barriers", std::to_string(count_in(model.barrier_lines, first, last)));
    fact.set_attribute("warp_intrinsics", std::to_string(count_in(warp_lines, first, last)));
    fact.set_attribute("atomics", std::to_string(count_in(atomic_lines, first, last)));
    fact.set_attribute("tensor_core", std::to_string(count_in(tensor_lines, first, last)));
    fact.set_attribute("inline_ptx", std::to_string(count_in(asm_lines, first, last)));
    // The declaration line counts too: double parameters.
    fact.set_attribute("has_double", count_in(model.double_lines, region.line, last) > 0 ? "true" : "false");
    fact.set_attribute("template", region.is_template ? "true" : "false");
    if (region.is_kernel) {
      const auto found = launches_by_kernel.find(region.name);
      const std::size_t launches = found == launches_by_kernel.end() ? 0 : found->second;
      fact.set_attribute("launches", std::to_string(launches));
    } else {
      fact.set_attribute("host_device", region.host_device ? "true" : "false");
    }
    fact.set_attribute("origin", region.origin);
    facts.push_back(std::move(fact));
  }

  for (auto &fact : facts) {
    if (fact.kind == kind::CudaLibrary) {
      fact.set_attribute("library", fact.name);
      if (!fact.attribute("function"))
        fact.set_attribute("function", "<" + attribute_or(fact, "header", fact.name) + ">");
    } else if (fact.kind == kind::CooperativeGroups && !fact.attribute("grid_sync"))
      fact.set_attribute("grid_sync", "false");
  }

  // One fact per kind, name and line: `thrust::sort(thrust::device, ...)` is
  // one use of thrust.
  std::stable_sort(facts.begin(), facts.end(), [](const Fact &a, const Fact &b) {
    return std::tie(a.span.line, a.span.column, a.kind) < std::tie(b.span.line, b.span.column, b.kind);
  });
  std::set<std::tuple<std::string, std::string, std::uint32_t>> seen;
  std::vector<Fact> unique;
  unique.reserve(facts.size());
  for (auto &fact : facts)
    if (seen.emplace(fact.kind, fact.name, fact.span.line).second)
      unique.push_back(std::move(fact));
  guard_cpu_fallback_code(unique, scan.cpu_fallback_ranges);
  return unique;
}

// A file that passed a bound of its budget: clang's parse (or the gate
// before it) was stopped, and the file keeps the raw lexer's facts. An
// error, as for a Python file past --max-parse-time: the file could not be
// fully scanned (exit code 3), and the result is not cached.
Diagnostic bound_passed(const SourceFile &file, const cxx::ParseBudget &budget) {
  const bool time = budget.bound() == cxx::ParseBound::Time;
  return {DiagnosticLevel::Error, file.path, 0, time ? "parse-timeout" : "parse-limit",
          (time ? "parsing took " : "clang stopped at ") + budget.describe() +
              "; the file was matched with clang's raw lexer only"};
}

// Parses `file` with clang and merges its model into the token model, its
// diagnostics into `result`. A parse stopped at a bound adds nothing: where
// clang stopped decides what it said.
void add_clang_model(const SourceFile &file, SourceLanguage language, const ExtractOptions &options,
                     CxxParseMode mode, std::uint32_t line_count, cxx::ParseBudget &budget,
                     cxx::FileModel &model, FileFacts &result) {
  cxx::AstScanResult ast = cxx::scan_ast(file, language, options, line_count, budget,
                                         /*skip_unread_bodies=*/mode == CxxParseMode::Auto);
  if (budget.exceeded())
    return;
  for (auto &diagnostic : ast.diagnostics)
    result.diagnostics.push_back(std::move(diagnostic));
  if (ast.usable) {
    merge_ast_into(model, std::move(ast.model));
    result.mode = "ast";
  } else {
    result.diagnostics.push_back(
        {DiagnosticLevel::Warning, file.path, 0, "lexical-fallback",
         "clang's AST is unusable (" + ast.unusable_reason + "); matched with clang's raw lexer"});
  }
}

} // namespace

FileFacts extract_cxx_file(const SourceFile &file, const ExtractOptions &options, CxxParseMode mode) {
  FileFacts result;
  result.mode = "lexical";
  try {
    cxx::ParseLimits limits;
    limits.time_ms = options.parse_timeout_ms;
    if (options.parse_memory_bytes > 0)
      limits.memory_bytes = options.parse_memory_bytes;
    cxx::ParseBudget budget(limits);
    const SourceLanguage language = language_of(file);
    cxx::TokenScanResult scan = cxx::scan_tokens(file.text, language);
    cxx::FileModel model = std::move(scan.model);
    if (mode == CxxParseMode::Lexical) {
      // Asked for: no diagnostic.
    } else if (file.text.size() > kCxxAstByteLimit) {
      result.diagnostics.push_back({DiagnosticLevel::Note, file.path, 0, "lexical-fallback",
                                    std::to_string(file.text.size()) + " bytes is over the " +
                                        std::to_string(kCxxAstByteLimit) +
                                        "-byte limit for a clang parse; matched with clang's raw lexer"});
    } else if (mode == CxxParseMode::Auto && !clang_could_add_to(file, language, model, options, budget)) {
      // Nothing for clang to confirm (see clang_could_add_to): tokens alone, as clang would leave them.
    } else if (!budget.exceeded()) {
      add_clang_model(file, language, options, mode, scan.line_count, budget, model, result);
    }
    if (budget.exceeded())
      result.diagnostics.push_back(bound_passed(file, budget));
    result.facts = build_facts(scan, model);
    resolve_op_registrations_in(result.facts);
  } catch (const std::exception &error) {
    result.diagnostics.push_back({DiagnosticLevel::Error, file.path, 0, "internal-error",
                                  std::string("C++/CUDA front end: ") + error.what()});
  }
  return result;
}

FileFacts extract_metal_file(const SourceFile &file, const ExtractOptions &) {
  FileFacts result;
  result.mode = "lexical";
  const auto kernels = cxx::scan_metal_kernels(file.text);
  Fact fact;
  fact.kind = std::string(cxx::kind::MetalPort);
  fact.name = "metal-shader";
  const std::uint32_t line = kernels.empty() ? 1 : kernels.front().line;
  fact.span = Span{line, 1, line, 1};
  fact.set_attribute("kernels", std::to_string(kernels.size()));
  std::string names;
  for (const auto &kernel : kernels)
    names += (names.empty() ? "" : ",") + kernel.name;
  fact.set_attribute("kernel_names", names);
  fact.set_attribute("evidence",
                     counted(kernels.size(), "Metal kernel") + (names.empty() ? "" : ": " + names));
  result.facts.push_back(std::move(fact));
  return result;
}

} // namespace mpsaudit
