// Text edits and unified diffs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "fix/fix.h"
#include "fix/fix_kind.h"

namespace mpsaudit {

bool edits_overlap(const TextEdit &a, const TextEdit &b) {
  const bool a_insert = a.begin == a.end, b_insert = b.begin == b.end;
  if (a_insert && b_insert)
    return false; // both land at a point; their order is kept
  if (a_insert)
    return a.begin > b.begin && a.begin < b.end;
  if (b_insert)
    return b.begin > a.begin && b.begin < a.end;
  return a.begin < b.end && b.begin < a.end;
}

std::string apply_edits(std::string_view text, std::vector<TextEdit> edits) {
  // Stable: edits at one offset keep the order they were accepted in, except
  // that insertions go before a replacement starting at the same byte.
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit &a, const TextEdit &b) {
    if (a.begin != b.begin)
      return a.begin < b.begin;
    return (a.begin == a.end) && (b.begin != b.end);
  });
  std::string out;
  out.reserve(text.size() + 256);
  std::size_t cursor = 0;
  for (const auto &edit : edits) {
    const std::size_t begin = std::min(edit.begin, text.size());
    const std::size_t end = std::min(std::max(edit.end, begin), text.size());
    if (begin < cursor)
      continue; // overlapping edits are filtered before; never corrupt the text
    out.append(text.substr(cursor, begin - cursor));
    out += edit.replacement;
    cursor = end;
  }
  out.append(text.substr(std::min(cursor, text.size())));
  return out;
}

namespace {

// Lines with their terminators, so that a missing final newline shows.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto newline = text.find('\n', start);
    const std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class Op : char { Keep = ' ', Remove = '-', Add = '+' };

using Lines = std::vector<std::string_view>;

// Myers' O((N+M)D) difference of two line sequences, as a script of
// keep/remove/add operations, or none when it takes more than `max_steps`
// edits. Fixes change few lines, so D stays small; the trace keeps only the
// 2d+1 diagonals each step reached, so memory is O(D²), bounded by max_steps.
std::optional<std::vector<Op>> myers_script(const Lines &a, const Lines &b, long max_steps) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
  const long max = n + m;
  const long offset = max + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max + 3), 0);
  // trace[d] holds v[offset - d .. offset + d] as it was before step d.
  std::vector<std::vector<long>> trace;
  long final_d = -1;
  for (long d = 0; d <= std::min(max, max_steps) && final_d < 0; ++d) {
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[static_cast<std::size_t>(offset + k - 1)] <
                                    v[static_cast<std::size_t>(offset + k + 1)]))
        x = v[static_cast<std::size_t>(offset + k + 1)];
      else
        x = v[static_cast<std::size_t>(offset + k - 1)] + 1;
      long y = x - k;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) {
        ++x;
        ++y;
      }
      v[static_cast<std::size_t>(offset + k)] = x;
      if (x >= n && y >= m) {
        final_d = d;
        break;
      }
    }
  }
  if (final_d < 0)
    return std::nullopt;
  // Walk the trace back from (n, m).
  std::vector<Op> script;
  long x = n, y = m;
  for (long d = final_d; d > 0; --d) {
    const std::vector<long> &previous = trace[static_cast<std::size_t>(d)];
    auto previous_at = [&](long k) { return previous[static_cast<std::size_t>(k + d)]; };
    const long k = x - y;
    long previous_k;
    if (k == -d || (k != d && previous_at(k - 1) < previous_at(k + 1)))
      previous_k = k + 1;
    else
      previous_k = k - 1;
    const long previous_x = previous_at(previous_k);
    const long previous_y = previous_x - previous_k;
    while (x > previous_x && y > previous_y) {
      script.push_back(Op::Keep);
      --x;
      --y;
    }
    if (x == previous_x)
      script.push_back(Op::Add);
    else
      script.push_back(Op::Remove);
    x = previous_x;
    y = previous_y;
  }
  while (x > 0 && y > 0) {
    script.push_back(Op::Keep);
    --x;
    --y;
  }
  std::reverse(script.begin(), script.end());
  return script;
}

// How many edits one Myers search may take before a section is diffed more
// coarsely: keeps the trace near 8 MB and the time near-linear in the file.
constexpr long kMaxMyersSteps = 1000;

// A section between anchors: Myers when it is cheap, else all of `a` removed
// and all of `b` added (still a correct diff, only a longer one).
void append_section_script(const Lines &a, const Lines &b, std::vector<Op> &script) {
  if (auto exact = myers_script(a, b, kMaxMyersSteps)) {
    script.insert(script.end(), exact->begin(), exact->end());
    return;
  }
  script.insert(script.end(), a.size(), Op::Remove);
  script.insert(script.end(), b.size(), Op::Add);
}

// Lines that occur once in `a` and once in `b`, as (index in a, index in b)
// pairs increasing in both: the longest such chain (patience diff's anchors).
std::vector<std::pair<std::size_t, std::size_t>> unique_anchors(const Lines &a, const Lines &b) {
  struct Seen {
    std::size_t count_a = 0, count_b = 0, index_a = 0, index_b = 0;
  };
  std::unordered_map<std::string_view, Seen> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    Seen &line = seen[a[i]];
    ++line.count_a;
    line.index_a = i;
  }
  for (std::size_t i = 0; i < b.size(); ++i) {
    const auto found = seen.find(b[i]);
    if (found == seen.end())
      continue;
    ++found->second.count_b;
    found->second.index_b = i;
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (const auto &line : a) {
    const Seen &entry = seen[line];
    if (entry.count_a == 1 && entry.count_b == 1)
      pairs.emplace_back(entry.index_a, entry.index_b);
  }
  // Longest increasing run of b indices (pairs are in a order): patience sort.
  std::vector<std::size_t> tails;                          // pair index ending a chain of each length
  std::vector<std::size_t> before(pairs.size(), SIZE_MAX); // predecessor in its chain
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto slot =
        std::lower_bound(tails.begin(), tails.end(), pairs[i].second,
                         [&](std::size_t tail, std::size_t b_index) { return pairs[tail].second < b_index; });
    if (slot != tails.begin())
      before[i] = *(slot - 1);
    if (slot == tails.end())
      tails.push_back(i);
    else
      *slot = i;
  }
  std::vector<std::pair<std::size_t, std::size_t>> chain;
  for (std::size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = before[i])
    chain.push_back(pairs[i]);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// The edit script of two line sequences. The exact Myers difference when it
// is small, which is every ordinary fix; a file with thousands of changed
// lines is cut at lines that occur once on each side and diffed per section,
// so that the diff never costs time or memory quadratic in the file.
std::vector<Op> diff_script(const Lines &a, const Lines &b) {
  if (auto exact = myers_script(a, b, kMaxMyersSteps))
    return *exact;
  std::vector<Op> script;
  std::size_t next_a = 0, next_b = 0;
  auto anchors = unique_anchors(a, b);
  anchors.emplace_back(a.size(), b.size()); // the end, as a last anchor
  for (const auto &[index_a, index_b] : anchors) {
    const Lines section_a(a.begin() + static_cast<long>(next_a), a.begin() + static_cast<long>(index_a));
    const Lines section_b(b.begin() + static_cast<long>(next_b), b.begin() + static_cast<long>(index_b));
    append_section_script(section_a, section_b, script);
    if (index_a < a.size())
      script.push_back(Op::Keep);
    next_a = index_a + 1;
    next_b = index_b + 1;
  }
  return script;
}

void write_line(std::ostringstream &out, char marker, std::string_view line) {
  out << marker;
  if (!line.empty() && line.back() == '\n') {
    out << line;
  } else {
    out << line << "\n\\ No newline at end of file\n";
  }
}

} // namespace

std::string unified_diff(const std::string &path, std::string_view before, std::string_view after) {
  if (before == after)
    return {};
  const auto a = split_lines(before), b = split_lines(after);
  // Trim the common ends first: the difference proper is usually small.
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix])
    ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  const Lines middle_a(a.begin() + static_cast<long>(prefix), a.end() - static_cast<long>(suffix));
  const Lines middle_b(b.begin() + static_cast<long>(prefix), b.end() - static_cast<long>(suffix));
  std::vector<Op> script(prefix, Op::Keep);
  const auto middle = diff_script(middle_a, middle_b);
  script.insert(script.end(), middle.begin(), middle.end());
  script.insert(script.end(), suffix, Op::Keep);

  constexpr std::size_t kContext = 3;
  std::ostringstream out;
  out << "--- a/" << path << "\n+++ b/" << path << "\n";
  // Positions in a and b at each script step.
  std::vector<std::size_t> line_a(script.size() + 1), line_b(script.size() + 1);
  for (std::size_t i = 0; i < script.size(); ++i) {
    line_a[i + 1] = line_a[i] + (script[i] != Op::Add ? 1 : 0);
    line_b[i + 1] = line_b[i] + (script[i] != Op::Remove ? 1 : 0);
  }
  std::size_t i = 0;
  while (i < script.size()) {
    if (script[i] == Op::Keep) {
      ++i;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after
    // the last change that is within 2*kContext unchanged lines of the next.
    const std::size_t start = i >= kContext ? i - kContext : 0;
    std::size_t end = i;
    while (end < script.size()) {
      if (script[end] != Op::Keep) {
        ++end;
        continue;
      }
      std::size_t run = end;
      while (run < script.size() && script[run] == Op::Keep)
        ++run;
      if (run == script.size() || run - end > 2 * kContext) {
        end = std::min(script.size(), end + kContext);
        break;
      }
      end = run;
    }
    std::size_t count_a = 0, count_b = 0;
    for (std::size_t j = start; j < end; ++j) {
      count_a += script[j] != Op::Add ? 1 : 0;
      count_b += script[j] != Op::Remove ? 1 : 0;
    }
    out << "@@ -" << (count_a ? line_a[start] + 1 : line_a[start]) << "," << count_a << " +"
        << (count_b ? line_b[start] + 1 : line_b[start]) << "," << count_b << " @@\n";
    for (std::size_t j = start; j < end; ++j) {
      if (script[j] == Op::Add)
        write_line(out, '+', b[line_b[j]]);
      else
        write_line(out, static_cast<char>(script[j]), a[line_a[j]]);
    }
    i = end;
  }
  return out.str();
}

} // namespace mpsaudit
