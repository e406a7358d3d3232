// markdown_text and markdown_code: what a name from the tree may not do to a
// Markdown report rendered by GitHub (docs/security.md).
#include <catch2/catch.hpp>

#include "../test_support.h"
#include "report/markdown_text.h"

using namespace mpsaudit;

TEST_CASE("markdown_text: no raw HTML, link, image or line break", "[report][markdown][security]") {
  testing::check_cases(markdown_text,
                       {
                           {"a<!--b", "a&lt;!--b"},
                           {"<script>x</script>", "&lt;script>x&lt;/script>"},
                           {"<https://example.com>", "&lt;https://example.com>"},
                           {"[x](y)", "[x]\\(y)"},
                           {"![i](http://t/p.png)", "![i]\\(http://t/p.png)"},
                           {"one\ntwo\r\nthree", "one two  three"},
                           {"cr\ronly", "cr\\x0donly"}, // a lone CR is a control character (terminal_safe)
                           {"x[0] and f(y)", "x[0] and f(y)"}, // brackets alone are no link
                       });
}

TEST_CASE("markdown_text: a pipe never ends a table cell", "[report][markdown][security]") {
  testing::check_cases(markdown_text,
                       {
                           {"a|b", "a\\|b"},
                           // GFM reads "\\" as one escaped backslash: the run before a pipe is doubled.
                           {"a\\|b", "a\\\\\\|b"},
                           {"a\\\\|b", "a\\\\\\\\\\|b"},
                           {"|", "\\|"},
                           {"a\\b", "a\\b"}, // a backslash away from a pipe is left alone
                       });
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
