#include "report/html_parts.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"

namespace mpsaudit {

const char *const kHtmlBaseStyle = R"CSS(
:root{--ok:#1a7f37;--dual:#9a6700;--keep:#cf222e;--ink:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}body{font:14px/1.45 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--ink);margin:0 auto;padding:24px;max-width:1680px;overflow-wrap:break-word}
h1{font-size:22px;margin:0 0 12px}h2{font-size:17px;margin:28px 0 10px;border-bottom:1px solid var(--line);padding-bottom:4px}
)CSS";

const char *const kSortableTablesScript = R"JS(
(function(){
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(table){var body=table.tBodies[0];
    Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){th.addEventListener('click',function(){
      var asc=!th.classList.contains('sorted-asc');Array.prototype.forEach.call(th.parentNode.cells,function(c){c.classList.remove('sorted-asc','sorted-desc');});
      th.classList.add(asc?'sorted-asc':'sorted-desc');var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){var x=a.cells[i].dataset.key||a.cells[i].textContent,y=b.cells[i].dataset.key||b.cells[i].textContent;
        var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c;});
      rows.forEach(function(r){body.appendChild(r);});});});});
})();
)JS";

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : terminal_safe(text, KeepLayout::TabAndNewline)) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string html_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string bar_chart(const std::string &id, const std::vector<Bar> &bars, int label_width) {
  const int row = 22, bar_width = 170, height = std::max<int>(1, static_cast<int>(bars.size())) * row + 4;
  double maximum = 0;
  for (const auto &bar : bars)
    maximum = std::max(maximum, bar.high);
  std::string svg = "<svg id=\"" + id + "\" role=\"img\" width=\"100%\" viewBox=\"0 0 " +
                    std::to_string(label_width + bar_width + 130) + " " + std::to_string(height) +
                    "\" xmlns=\"http://www.w3.org/2000/svg\">";
  if (bars.empty())
    svg += "<text x=\"0\" y=\"16\" font-size=\"12\" fill=\"#656d76\">nothing to show</text>";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar &bar = bars[i];
    const int y = static_cast<int>(i) * row + 2;
    const double high_w = maximum > 0 ? bar.high / maximum * bar_width : 0;
    const double low_w = maximum > 0 ? bar.low / maximum * bar_width : 0;
    // About 6.5 units a character at 11 px: a longer label keeps its end.
    const std::size_t fits = static_cast<std::size_t>(std::max(8, label_width / 6 - 1));
    std::string label =
        bar.label.size() > fits ? "…" + bar.label.substr(bar.label.size() - (fits - 1)) : bar.label;
    svg += "<g class=\"bar\" data-label=\"" + html_escape(bar.label) + "\" data-value=\"" +
           html_number(bar.high) + "\">";
    svg += "<title>" + html_escape(bar.label + ": " + bar.value_text) + "</title>";
    svg += "<text x=\"" + std::to_string(label_width - 6) + "\" y=\"" + std::to_string(y + 14) +
           "\" font-size=\"11\" text-anchor=\"end\" fill=\"#1f2328\">" + html_escape(label) + "</text>";
    svg += "<rect x=\"" + std::to_string(label_width) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
           html_number(high_w) + "\" height=\"14\" fill=\"" + bar.colour + "\" fill-opacity=\"0.35\"/>";
    svg += "<rect x=\"" + std::to_string(label_width) + "\" y=\"" + std::to_string(y + 3) + "\" width=\"" +
           html_number(low_w) + "\" height=\"14\" fill=\"" + bar.colour + "\"/>";
    svg += "<text x=\"" + html_number(label_width + high_w + 6) + "\" y=\"" + std::to_string(y + 14) +
           "\" font-size=\"11\" fill=\"#656d76\">" + html_escape(bar.value_text) + "</text></g>";
  }
  return svg + "</svg>";
}

} // namespace mpsaudit
