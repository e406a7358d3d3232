// Pieces the HTML pages share (the scan report, the lab's portfolio):
// escaping text from untrusted trees, numbers for attributes, and an inline
// SVG bar chart. Every page is self-contained: nothing here loads anything.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mpsaudit {

// The colours (verdicts, ink, lines), the page and the headings: the start
// of every page's style, which adds its own after it.
extern const char *const kHtmlBaseStyle;

// Makes every `table.sortable` sortable by a click on a header: by a cell's
// data-key when it has one, else its text; numbers as numbers.
extern const char *const kSortableTablesScript;

// HTML-escapes text from the scanned tree; control characters and bidi
// overrides, which a browser would hide or act on, become visible escapes
// first (core/text.h).
std::string html_escape(std::string_view text);

// A number for an attribute or an SVG coordinate: two decimals.
std::string html_number(double value);

struct Bar {
  std::string label;
  double low = 0;
  double high = 0;
  std::string value_text;
  std::string colour = "#0969da";
};

// A horizontal bar chart as inline SVG; a range bar shows low solid, high
// pale. `label_width` is the room, in SVG units, the labels get.
std::string bar_chart(const std::string &id, const std::vector<Bar> &bars, int label_width = 150);

} // namespace mpsaudit
