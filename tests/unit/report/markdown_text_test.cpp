// markdown_text and markdown_code: what a name from the tree may not do to a
// Markdown report rendered by GitHub (docs/security.md).
#include <catch2/catch.hpp>

#include "report/markdown_text.h"

using namespace mpsaudit;

TEST_CASE("markdown_text: no raw HTML, link, image or line break", "[report][markdown][security]") {
  CHECK(markdown_text("a<!--b") == "a&lt;!--b");
  CHECK(markdown_text("<script>x</script>") == "&lt;script>x&lt;/script>");
  CHECK(markdown_text("<https://example.com>") == "&lt;https://example.com>");
  CHECK(markdown_text("[x](y)") == "[x]\\(y)");
  CHECK(markdown_text("![i](http://t/p.png)") == "![i]\\(http://t/p.png)");
  CHECK(markdown_text("one\ntwo\r\nthree") == "one two  three");
  CHECK(markdown_text("cr\ronly") == "cr\\x0donly"); // a lone CR is a control character (terminal_safe)
  CHECK(markdown_text("x[0] and f(y)") == "x[0] and f(y)"); // brackets alone are no link
}

TEST_CASE("markdown_text: a pipe never ends a table cell", "[report][markdown][security]") {
  CHECK(markdown_text("a|b") == "a\\|b");
  // GFM reads "\\" as one escaped backslash: the run before a pipe is doubled.
  CHECK(markdown_text("a\\|b") == "a\\\\\\|b");
  CHECK(markdown_text("a\\\\|b") == "a\\\\\\\\\\|b");
  CHECK(markdown_text("|") == "\\|");
  CHECK(markdown_text("a\\b") == "a\\b"); // a backslash away from a pipe is left alone
}

TEST_CASE("markdown_text: ordinary text is unchanged; control characters are escapes",
          "[report][markdown][security]") {
  CHECK(markdown_text("`torch.cuda.synchronize()` initialises CUDA") ==
        "`torch.cuda.synchronize()` initialises CUDA");
  CHECK(markdown_text("train_model.py *args **kwargs") == "train_model.py *args **kwargs");
  CHECK(markdown_text("a\x1b[31mb") == "a\\x1b[31mb");
}

TEST_CASE("markdown_code: the fence outlasts every backtick run", "[report][markdown][security]") {
  CHECK(markdown_code("train.py:3") == "`train.py:3`");
  CHECK(markdown_code("a`b") == "`` a`b ``");
  CHECK(markdown_code("a``b`") == "``` a``b` ```");
  CHECK(markdown_code("<!--|") == "`&lt;!--\\|`");
}
