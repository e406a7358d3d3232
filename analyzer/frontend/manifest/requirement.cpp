#include "frontend/manifest/requirement.h"

#include <cctype>
#include <vector>

#include "core/text.h"
#include "frontend/manifest/package_knowledge.h"

namespace mpsaudit::manifest {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

std::string without_spaces(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t')
      out.push_back(c);
  return out;
}

// The name a direct URL or VCS requirement installs: `#egg=name`, or the
// distribution part of a wheel/sdist file name.
std::string name_from_url(std::string_view url, std::string &version) {
  const auto egg = url.find("#egg=");
  if (egg != std::string_view::npos) {
    std::string_view name = url.substr(egg + 5);
    const auto end = name.find_first_of("&[ ");
    return std::string(name.substr(0, end));
  }
  std::string_view file = url.substr(url.rfind('/') == std::string_view::npos ? 0 : url.rfind('/') + 1);
  file = file.substr(0, file.find_first_of("?#"));
  if (ends_with(file, ".whl") || ends_with(file, ".tar.gz") || ends_with(file, ".zip")) {
    const auto dash = file.find('-');
    if (dash == std::string_view::npos)
      return {};
    std::string_view rest = file.substr(dash + 1);
    std::string_view ver = rest.substr(0, rest.find('-'));
    if (ends_with(ver, ".tar.gz"))
      ver.remove_suffix(7);
    else if (ends_with(ver, ".zip"))
      ver.remove_suffix(4);
    version = std::string(ver);
    // Wheel file names percent-encode the '+' of local versions.
    for (std::size_t at; (at = version.find("%2B")) != std::string::npos;)
      version.replace(at, 3, "+");
    return std::string(file.substr(0, dash));
  }
  // pip installs a VCS link without #egg= too (it reads the name from the
  // project's metadata); the repository's name is what that nearly always is.
  const bool vcs = starts_with(url, "git+") || starts_with(url, "hg+") || starts_with(url, "svn+") ||
                   starts_with(url, "bzr+");
  if (vcs) {
    std::string_view repository = url.substr(0, url.find_first_of("?#"));
    const auto at = repository.find('@', repository.find("://") + 3);
    if (at != std::string_view::npos && repository.find('/', at) == std::string_view::npos)
      repository = repository.substr(0, at); // a ref after the path: repo.git@v1.0
    while (ends_with(repository, "/"))
      repository.remove_suffix(1);
    std::string_view name = repository.substr(repository.rfind('/') + 1);
    if (ends_with(name, ".git"))
      name.remove_suffix(4);
    return std::string(name);
  }
  return {};
}

// --- PEP 508 markers, evaluated three-valued for an Apple-Silicon Mac ------

struct MarkerToken {
  enum Kind { Word, String, Op, Open, Close, End } kind = End;
  std::string text;
};

class MarkerLexer {
public:
  explicit MarkerLexer(std::string_view text) : text_(text) {}
  std::vector<MarkerToken> tokens() {
    std::vector<MarkerToken> out;
    std::size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '(' || c == ')') {
        out.push_back({c == '(' ? MarkerToken::Open : MarkerToken::Close, std::string(1, c)});
        ++i;
      } else if (c == '"' || c == '\'') {
        const auto close = text_.find(c, i + 1);
        const auto end = close == std::string_view::npos ? text_.size() : close;
        out.push_back({MarkerToken::String, std::string(text_.substr(i + 1, end - i - 1))});
        i = end + 1;
      } else if (c == '=' || c == '!' || c == '<' || c == '>' || c == '~') {
        std::size_t j = i;
        while (j < text_.size() &&
               (text_[j] == '=' || text_[j] == '!' || text_[j] == '<' || text_[j] == '>' || text_[j] == '~'))
          ++j;
        out.push_back({MarkerToken::Op, std::string(text_.substr(i, j - i))});
        i = j;
      } else {
        std::size_t j = i;
        while (j < text_.size() && (is_name_char(text_[j])))
          ++j;
        if (j == i)
          j = i + 1;
        out.push_back({MarkerToken::Word, std::string(text_.substr(i, j - i))});
        i = j;
      }
    }
    out.push_back({MarkerToken::End, {}});
    return out;
  }

private:
  std::string_view text_;
};

// Values of the marker variables on an Apple-Silicon Mac; absent: unknown.
const char *mac_value(std::string_view variable) {
  if (variable == "sys_platform")
    return "darwin";
  if (variable == "platform_system")
    return "Darwin";
  if (variable == "platform_machine")
    return "arm64";
  if (variable == "os_name")
    return "posix";
  return nullptr;
}

class MarkerEvaluator {
public:
  explicit MarkerEvaluator(std::vector<MarkerToken> tokens) : tokens_(std::move(tokens)) {}

  MarkerOutcome evaluate() {
    const MarkerOutcome result = parse_or(0);
    return tokens_[position_].kind == MarkerToken::End ? result : MarkerOutcome::Unknown;
  }

private:
  const MarkerToken &peek() const { return tokens_[position_]; }
  bool at_word(std::string_view word) const {
    return peek().kind == MarkerToken::Word && peek().text == word;
  }
  void advance() {
    if (peek().kind != MarkerToken::End)
      ++position_;
  }

  MarkerOutcome parse_or(int depth) {
    MarkerOutcome left = parse_and(depth);
    while (at_word("or")) {
      advance();
      const MarkerOutcome right = parse_and(depth);
      if (left == MarkerOutcome::True || right == MarkerOutcome::True)
        left = MarkerOutcome::True;
      else if (left == MarkerOutcome::Unknown || right == MarkerOutcome::Unknown)
        left = MarkerOutcome::Unknown;
      else
        left = MarkerOutcome::False;
    }
    return left;
  }

  MarkerOutcome parse_and(int depth) {
    MarkerOutcome left = parse_atom(depth);
    while (at_word("and")) {
      advance();
      const MarkerOutcome right = parse_atom(depth);
      if (left == MarkerOutcome::False || right == MarkerOutcome::False)
        left = MarkerOutcome::False;
      else if (left == MarkerOutcome::Unknown || right == MarkerOutcome::Unknown)
        left = MarkerOutcome::Unknown;
      else
        left = MarkerOutcome::True;
    }
    return left;
  }

  MarkerOutcome parse_atom(int depth) {
    if (peek().kind == MarkerToken::Open) {
      advance();
      // Deeply nested input is not a marker anyone writes: give up safely.
      const MarkerOutcome inner = depth > 64 ? MarkerOutcome::Unknown : parse_or(depth + 1);
      if (peek().kind == MarkerToken::Close)
        advance();
      return inner;
    }
    const MarkerToken left = peek();
    advance();
    std::string op;
    if (peek().kind == MarkerToken::Op) {
      op = peek().text;
      advance();
    } else if (at_word("in")) {
      op = "in";
      advance();
    } else if (at_word("not")) {
      advance();
      if (at_word("in"))
        advance();
      op = "not in";
    } else {
      return MarkerOutcome::Unknown;
    }
    const MarkerToken right = peek();
    advance();
    return compare(left, op, right);
  }

  static std::optional<std::string> value_of(const MarkerToken &token) {
    if (token.kind == MarkerToken::String)
      return token.text;
    if (token.kind == MarkerToken::Word)
      if (const char *value = mac_value(token.text))
        return std::string(value);
    return std::nullopt;
  }

  static MarkerOutcome compare(const MarkerToken &left, const std::string &op, const MarkerToken &right) {
    const auto l = value_of(left);
    const auto r = value_of(right);
    if (!l || !r)
      return MarkerOutcome::Unknown;
    const auto truth = [](bool b) { return b ? MarkerOutcome::True : MarkerOutcome::False; };
    // Platform names are compared as written by pip, but people write
    // "Linux"/"linux" interchangeably for platform_system; pip would not
    // match either on a Mac, so case-folding cannot change the answer there.
    const std::string lf = to_lower(*l), rf = to_lower(*r);
    if (op == "==" || op == "===")
      return truth(lf == rf);
    if (op == "!=")
      return truth(lf != rf);
    if (op == "in")
      return truth(rf.find(lf) != std::string::npos);
    if (op == "not in")
      return truth(rf.find(lf) == std::string::npos);
    return MarkerOutcome::Unknown; // version comparisons on platform strings
  }

  std::vector<MarkerToken> tokens_;
  std::size_t position_ = 0;
};

bool is_cuda_tag_token(std::string_view token) {
  std::string lower = to_lower(token);
  if (starts_with(lower, "cu") && lower.size() >= 4 && lower.size() <= 5) {
    for (std::size_t i = 2; i < lower.size(); ++i)
      if (!std::isdigit(static_cast<unsigned char>(lower[i])))
        return false;
    return true;
  }
  return false;
}

} // namespace

std::optional<Requirement> parse_requirement(std::string_view text, std::string &error) {
  Requirement requirement;
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  const std::string_view rest = text.substr(i);
  // Direct references without a name: URLs, VCS links, local paths.
  const bool looks_like_url =
      rest.find("://") != std::string_view::npos &&
      (rest.find("://") < rest.find_first_of(" ;@") || rest.find_first_of(" ;@") == std::string_view::npos);
  if (looks_like_url || starts_with(rest, ".") || starts_with(rest, "/") || starts_with(rest, "~")) {
    std::string_view url = rest.substr(0, rest.find_first_of(" \t"));
    requirement.url = std::string(url);
    std::string version;
    requirement.name = name_from_url(url, version);
    if (requirement.name.empty()) {
      error = "a direct reference without a name (add #egg=NAME or use NAME @ URL)";
      return std::nullopt;
    }
    requirement.name_offset = i;
    requirement.version = version;
    const auto plus = version.find('+');
    if (plus != std::string::npos)
      requirement.local_version = version.substr(plus + 1);
    const auto semicolon = rest.find(';');
    if (semicolon != std::string_view::npos)
      requirement.marker = std::string(trim(rest.substr(semicolon + 1)));
    return requirement;
  }
  if (i >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i]))) {
    error = "expected a package name";
    return std::nullopt;
  }
  const std::size_t name_begin = i;
  while (i < text.size() && is_name_char(text[i]))
    ++i;
  requirement.name = std::string(text.substr(name_begin, i - name_begin));
  requirement.name_offset = name_begin;
  const auto skip_space = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
      ++i;
  };
  skip_space();
  if (i < text.size() && text[i] == '[') {
    const auto close = text.find(']', i);
    if (close == std::string_view::npos) {
      error = "unterminated extras '['";
      return std::nullopt;
    }
    requirement.extras = without_spaces(text.substr(i + 1, close - i - 1));
    i = close + 1;
    skip_space();
  }
  const auto semicolon = text.find(';', i);
  std::string_view version_part =
      text.substr(i, semicolon == std::string_view::npos ? std::string_view::npos : semicolon - i);
  if (semicolon != std::string_view::npos)
    requirement.marker = std::string(trim(text.substr(semicolon + 1)));
  version_part = trim(version_part);
  if (starts_with(version_part, "@")) {
    requirement.url = std::string(trim(version_part.substr(1)));
    std::string version;
    name_from_url(requirement.url, version);
    requirement.version = version;
  } else {
    if (starts_with(version_part, "(") && ends_with(version_part, ")"))
      version_part = version_part.substr(1, version_part.size() - 2);
    requirement.specifier = without_spaces(version_part);
    if (!requirement.specifier.empty() &&
        std::string_view("=<>!~").find(requirement.specifier.front()) == std::string_view::npos) {
      error = "unexpected text after the package name: '" + std::string(version_part) + "'";
      return std::nullopt;
    }
    std::string_view clauses = requirement.specifier;
    while (!clauses.empty()) {
      const auto comma = clauses.find(',');
      std::string_view clause = clauses.substr(0, comma);
      clauses = comma == std::string_view::npos ? std::string_view{} : clauses.substr(comma + 1);
      if (starts_with(clause, "===") || (starts_with(clause, "==") && !starts_with(clause, "===")))
        requirement.version = std::string(clause.substr(starts_with(clause, "===") ? 3 : 2));
      const auto plus = clause.find('+');
      if (plus != std::string_view::npos && requirement.local_version.empty())
        requirement.local_version = std::string(clause.substr(plus + 1));
    }
  }
  if (requirement.local_version.empty()) {
    const auto plus = requirement.version.find('+');
    if (plus != std::string::npos)
      requirement.local_version = requirement.version.substr(plus + 1);
  }
  return requirement;
}

MarkerOutcome evaluate_marker_on_mac(std::string_view marker) {
  if (trim(marker).empty())
    return MarkerOutcome::True;
  MarkerEvaluator evaluator(MarkerLexer(marker).tokens());
  return evaluator.evaluate();
}

std::string cuda_tag_of(std::string_view url) {
  const std::string lower = to_lower(url);
  if (lower.find("pypi.nvidia.com") != std::string::npos ||
      lower.find("pypi.ngc.nvidia.com") != std::string::npos)
    return "nvidia";
  // Split into tokens at URL and version punctuation; %2B is an encoded '+'.
  std::string cleaned = lower;
  for (std::size_t at; (at = cleaned.find("%2b")) != std::string::npos;)
    cleaned.replace(at, 3, "+");
  std::size_t start = 0;
  for (std::size_t k = 0; k <= cleaned.size(); ++k) {
    const bool separator =
        k == cleaned.size() || std::string_view("/+-_.:=?&#").find(cleaned[k]) != std::string_view::npos;
    if (!separator)
      continue;
    const std::string_view token = std::string_view(cleaned).substr(start, k - start);
    if (is_cuda_tag_token(token))
      return std::string(token);
    // jax_cuda_releases.html, torch-2.0.0+pt20cu118: a "cuda" word or a
    // "...cuNNN" suffix inside a token.
    if (token == "cuda" || starts_with(token, "cuda1"))
      return std::string(token);
    const auto cu = token.rfind("cu");
    if (cu != std::string_view::npos && cu > 0 && is_cuda_tag_token(token.substr(cu)) &&
        std::isdigit(static_cast<unsigned char>(token[cu - 1])))
      return std::string(token.substr(cu));
    start = k + 1;
  }
  return {};
}

Fact make_fact(std::string_view kind, std::string name, std::uint32_t line, std::uint32_t column,
               std::uint32_t length) {
  Fact fact;
  fact.kind = std::string(kind);
  fact.name = std::move(name);
  fact.span.line = line;
  fact.span.column = column;
  fact.span.end_line = line;
  fact.span.end_column = column + length;
  return fact;
}

Fact dependency_fact(const Requirement &requirement, std::string_view raw_text, std::string_view source,
                     std::uint32_t line, std::uint32_t column) {
  Fact fact = make_fact(fact_kind::Dependency, normalize_package_name(requirement.name), line, column,
                        static_cast<std::uint32_t>(requirement.name.size()));
  fact.set_attribute("value", std::string(trim(raw_text)));
  fact.set_attribute("source", std::string(source));
  if (!requirement.specifier.empty())
    fact.set_attribute("specifier", requirement.specifier);
  if (!requirement.version.empty())
    fact.set_attribute("version", requirement.version);
  if (!requirement.local_version.empty())
    fact.set_attribute("local_version", to_lower(requirement.local_version));
  if (!requirement.extras.empty())
    fact.set_attribute("extras", to_lower(requirement.extras));
  if (!requirement.url.empty()) {
    fact.set_attribute("url", requirement.url);
    const std::string tag = cuda_tag_of(requirement.url);
    if (!tag.empty())
      fact.set_attribute("cuda_tag", tag);
  }
  if (!requirement.marker.empty()) {
    fact.set_attribute("marker", requirement.marker);
    const MarkerOutcome on_mac = evaluate_marker_on_mac(requirement.marker);
    if (on_mac == MarkerOutcome::False) {
      fact.guard = Guard::PlatformCheck;
      fact.set_attribute("mac", "excluded");
    } else if (on_mac == MarkerOutcome::True) {
      fact.set_attribute("mac", "included");
    }
  }
  annotate_dependency(fact);
  return fact;
}

void add_diagnostic(FileFacts &facts, DiagnosticLevel level, const std::string &path, std::uint32_t line,
                    std::string code, std::string message) {
  Diagnostic diagnostic;
  diagnostic.level = level;
  diagnostic.path = path;
  diagnostic.line = line;
  diagnostic.code = std::move(code);
  diagnostic.message = std::move(message);
  facts.diagnostics.push_back(std::move(diagnostic));
}

} // namespace mpsaudit::manifest
