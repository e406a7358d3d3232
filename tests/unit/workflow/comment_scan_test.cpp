// The per-language comment lexers behind inline suppressions: a comment is
// found where the language has one, and string literals, heredocs, block
// scalars and code spans never yield one (docs/security.md, "Suppression
// markers").
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "workflow/comment_scan.h"

using namespace mpsaudit;

namespace {

// The text of every comment `find_comments` reports.
std::vector<std::string> comments(FileKind kind, const std::string &text, const std::string &path = "f") {
  std::vector<std::string> out;
  for (const CommentSpan &span : find_comments(kind, path, text))
    out.push_back(text.substr(span.begin, span.end - span.begin));
  return out;
}

using Texts = std::vector<std::string>;

} // namespace

TEST_CASE("Python: comments, never string contents", "[comments][python]") {
  CHECK(comments(FileKind::Python, "x = 1  # c\r\ny = '# s'  # d\n") == Texts{"# c", "# d"});
  CHECK(comments(FileKind::Python, "a = \"#x\" 'y#' \"\"\"\n# doc\n\"\"\" '''\n# also\n''' # real\n") ==
        Texts{"# real"});
  CHECK(comments(FileKind::Python, "s = r'\\' # still string'  # c\n") == Texts{"# c"});
  CHECK(comments(FileKind::Python, "s = b'\\'#' + Rb\"#\" + u'#' # c\n") == Texts{"# c"});
  // An unterminated single-quoted string ends at its line.
  CHECK(comments(FileKind::Python, "s = 'open\n# c\n") == Texts{"# c"});
  // A name ending in a prefix letter is not a prefix.
  CHECK(comments(FileKind::Python, "bar'#' # c\n") == Texts{"# c"});
}

TEST_CASE("Python: f-strings as PEP 701 reads them", "[comments][python]") {
  // Text, literal braces and format specs (with '#', the alternate form) are data.
  CHECK(comments(FileKind::Python, "f'# {{x}} {x:#x} {y!r:>{w}} # t' # c\n") == Texts{"# c"});
  // Nested strings in replacement fields, same quotes included (3.12).
  CHECK(comments(FileKind::Python, "f\"{d[\"#k\"]} # {f'{\"#\"}'}\" # c\n") == Texts{"# c"});
  // \N{...} is an escape, not a field.
  CHECK(comments(FileKind::Python, "f'\\N{BULLET} # x' # c\n") == Texts{"# c"});
  // A comment inside a multi-line replacement field is a comment to Python.
  CHECK(comments(FileKind::Python, "s = f'''{\n  x  # in field\n}''' # c\n") == Texts{"# in field", "# c"});
  // t-strings (3.14) and rf-strings.
  CHECK(comments(FileKind::Python, "t'#{x}#' rf'\\{x}#' # c\n") == Texts{"# c"});
}

TEST_CASE("Python: deep f-string nesting costs no stack", "[comments][python]") {
  std::string text = "x = ";
  for (int i = 0; i < 200000; ++i)
    text += "f'{";
  text += "\n# c\n";
  CHECK(comments(FileKind::Python, text) == Texts{"# c"});
}

TEST_CASE("C, C++, CUDA: // and /* */ outside literals", "[comments][cxx]") {
  CHECK(comments(FileKind::Cxx, "a(\"// s\", '/'); // c\nb(); /* d\n e */ x\n") ==
        Texts{"// c", "/* d\n e */"});
  CHECK(comments(FileKind::Cuda, "auto s = R\"x(// )\" /* )x\"; // c\n") == Texts{"// c"});
  CHECK(comments(FileKind::Cxx, "int n = 1'000'000; // c\n") == Texts{"// c"});
  CHECK(comments(FileKind::Cxx, "char q = '\"'; // c\n") == Texts{"// c"});
  // A line splice continues a // comment.
  CHECK(comments(FileKind::Cxx, "// a \\\nstill\nx;\n") == Texts{"// a \\\nstill"});
  CHECK(comments(FileKind::Metal, "#include <metal_stdlib> // c\n") == Texts{"// c"});
}

TEST_CASE("CMake, TOML: # outside quoted and bracket arguments", "[comments]") {
  CHECK(comments(FileKind::Cmake, "set(A \"#s\" [[#b]] x) # c\n#[[ block\n]] y\n") ==
        Texts{"# c", "#[[ block\n]]"});
  CHECK(
      comments(FileKind::Pyproject, "a = \"#\" # c\nb = '#'\nc = \"\"\"\n# doc\n\"\"\"\nd = '''#''' # e\n") ==
      Texts{"# c", "# e"});
}

TEST_CASE("YAML: # after a space, outside quoted and block scalars", "[comments][yaml]") {
  CHECK(comments(FileKind::CondaEnv, "name: x # c\nurl: http://a#b\ns: 'it''s # q'\nt: \"#\"\n") ==
        Texts{"# c"});
  CHECK(comments(FileKind::CondaEnv, "key: it's # c\n") == Texts{"# c"});
  CHECK(comments(FileKind::ModelConfig, "note: |  # c\n  # data\n  more\nnext: 1 # d\n", "m.yaml") ==
        Texts{"# c", "# d"});
  CHECK(comments(FileKind::ModelConfig, "- run: >\n    # data\n- x # d\n", "m.yaml") == Texts{"# d"});
  // JSON has no comments.
  CHECK(comments(FileKind::ModelConfig, "{\"a\": \"# x\"}\n", "config.json").empty());
}

TEST_CASE("requirements and setup.cfg", "[comments]") {
  CHECK(comments(FileKind::Requirements, "# c\nx @ https://h/p#egg=x  # d\n") == Texts{"# c", "# d"});
  CHECK(comments(FileKind::SetupCfg, "[m]\n  # c\n; d\nx = a # not\n") == Texts{"# c", "; d"});
}

TEST_CASE("shell and Dockerfiles: # starting a word, outside quotes and heredocs", "[comments][shell]") {
  CHECK(comments(FileKind::Shell, "echo '#' \"#\" a#b $# ${#x} \\# # c\n") == Texts{"# c"});
  CHECK(comments(FileKind::Shell, "x=\"$(echo \"#\") # s\" # c\n") == Texts{"# c"});
  CHECK(comments(FileKind::Shell, "cat <<'EOF' > f # c\n# data\nEOF\n# d\n") == Texts{"# c", "# d"});
  CHECK(comments(FileKind::Shell, "cat <<-EOF\n# data\n\tEOF\ny=$((1<<2)) # d\n") == Texts{"# d"});
  CHECK(comments(FileKind::Shell, "cat <<< '#' # c\n") == Texts{"# c"});
  // A heredoc that never ends is not taken for data.
  CHECK(comments(FileKind::Shell, "cat <<EOF\n# c\n") == Texts{"# c"});
  CHECK(comments(FileKind::Dockerfile, "# c\nLABEL a=\"# s\"\nRUN x # d\n") == Texts{"# c", "# d"});
  CHECK(comments(FileKind::Shell, "A = \"x # c\"\n\techo '#' # d\n", "sub/Makefile") ==
        Texts{"# c\"", "# d"});
}

TEST_CASE("Markdown: HTML comments outside code", "[comments][prose]") {
  CHECK(comments(FileKind::Prose, "# Title\nText <!-- c --> `<!-- s -->` ``a ` <!-- t -->``\n") ==
        Texts{"<!-- c -->"});
  CHECK(comments(FileKind::Prose, "```sh\n# x <!-- s -->\n```\n<!-- a\nb --> <!-- c -->\n") ==
        Texts{"<!-- a\nb -->", "<!-- c -->"});
  // An unmatched backtick is literal.
  CHECK(comments(FileKind::Prose, "a ` b <!-- c -->\n") == Texts{"<!-- c -->"});
}

TEST_CASE("kinds without comments yield none", "[comments]") {
  CHECK(comments(FileKind::Unknown, "# x\n").empty());
  CHECK(comments(FileKind::Checkpoint, "# x\n").empty());
}
