// `--format github`: GitHub Actions workflow commands, one per finding, so
// that findings show up as annotations on the pull request's diff:
//   ::warning file=train.py,line=12,col=5,endLine=12,endColumn=17,title=MPS201 dot-cuda::message
// https://docs.github.com/actions/reference/workflow-commands-for-github-actions
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "report/report.h"

namespace mpsaudit {

// Severity error -> ::error, warning -> ::warning, info -> ::notice.
// Suppressed findings are left out. A last ::notice line carries the summary.
// `path_prefix` is prepended to every path (the scan root relative to the
// repository root, so that annotations land on the right file); may be "".
// Without one (outside git), paths read from the current directory
// (path_for_display).
void write_github_report(std::ostream &out, const ScanResult &result, const ReportContext &context,
                         const std::optional<std::string> &path_prefix = std::nullopt);

// Escaping rules of workflow commands: data escapes %, CR and LF; property
// values also escape ':' and ','.
std::string github_escape_data(std::string_view text);
std::string github_escape_property(std::string_view text);

} // namespace mpsaudit
