#include "verdicts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace mpsaudit::probe {

using nlohmann::json;

bool is_named_tensor_overload(const std::string &overload) {
  std::string lower;
  for (char c : overload)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("dimname") != std::string::npos || lower.find("names") != std::string::npos ||
         lower.find("named") != std::string::npos;
}

void apply_coverage_verdict(OperatorVerdict &verdict, const CoverageTable &table,
                            const CoverageLibrary &library) {
  verdict.mps_evidence = "coverage-table@" + table.version;
  const ApiResolution &resolution = verdict.resolution;
  if (resolution.aten_names.empty()) {
    verdict.mps_outcome = "unmapped";
    verdict.mps_evidence = "not-probeable";
    verdict.mps_reason = resolution.absent.empty()
                             ? "no ATen operator of PyTorch " + table.version + " matches this name"
                             : "the operators it maps to are not in PyTorch " + table.version;
    return;
  }
  int native = 0, composite = 0, missing = 0, forced = 0, not_dense = 0;
  std::set<std::string> missing_names;
  for (const std::string &name : resolution.aten_names) {
    auto overloads = table.overloads(name);
    // The overloads a Python call can reach: out= variants only when nothing else exists.
    bool has_functional = std::any_of(overloads.begin(), overloads.end(),
                                      [](const OperatorCoverage *op) { return !op->has_out_argument; });
    for (const OperatorCoverage *op : overloads) {
      if (has_functional && op->has_out_argument)
        continue;
      if (is_named_tensor_overload(op->overload))
        continue;
      switch (op->mps_status) {
      case MpsStatus::Native:
        ++native;
        break;
      case MpsStatus::CompositeImplicit:
      case MpsStatus::CompositeExplicit:
        ++composite;
        break;
      case MpsStatus::Missing:
        ++missing;
        verdict.missing_overloads.push_back(op->full_name());
        missing_names.insert(op->name);
        break;
      case MpsStatus::ForcedCpu:
        ++forced;
        verdict.forced_cpu_overloads.push_back(op->full_name());
        break;
      case MpsStatus::NotDense:
        ++not_dense;
        break;
      }
    }
  }
  int runs = native + composite;
  if (missing && runs == 0 && forced == 0) {
    verdict.mps_outcome = "missing";
    verdict.mps_reason = "no MPS kernel in PyTorch " + table.version +
                         ": raises NotImplementedError on MPS, or runs on the CPU when "
                         "PYTORCH_ENABLE_MPS_FALLBACK=1";
  } else if (missing) {
    verdict.mps_outcome = "partial";
    verdict.mps_reason = "some overloads or code paths have no MPS kernel in PyTorch " + table.version +
                         " (listed in missing_overloads)";
  } else if (forced) {
    verdict.mps_outcome = "forced-cpu";
    verdict.mps_reason = "PyTorch " + table.version +
                         " registers these overloads to run on the CPU under MPS (MPSFallback.mm), "
                         "with a copy each way";
  } else if (native && !composite) {
    verdict.mps_outcome = "native";
    verdict.mps_reason = "every overload has an MPS kernel in PyTorch " + table.version;
  } else if (runs) {
    verdict.mps_outcome = "composite";
    verdict.mps_reason = "composite kernels: they run on MPS when the operators they call do; "
                         "a live probe on MPS settles it";
  } else {
    verdict.mps_outcome = "not-dense";
    verdict.mps_reason = "only sparse, quantized or nested-tensor kernels";
  }
  // The release that brings the missing kernels, if any table has one.
  std::string newest;
  for (const std::string &name : missing_names) {
    std::string release = library.first_release_with_mps(name, table.version);
    if (release.empty()) {
      newest.clear();
      break;
    }
    if (newest.empty() || compare_versions(release, newest) > 0)
      newest = release;
  }
  verdict.first_release_with_mps = newest;
}

std::vector<OperatorVerdict> coverage_verdicts(const std::vector<ApiUse> &uses, const PythonApiMap &map,
                                               const CoverageTable &table, const CoverageLibrary &library) {
  std::vector<OperatorVerdict> verdicts;
  std::map<std::string, std::size_t> position;
  for (const ApiUse &use : uses) {
    auto [it, inserted] = position.emplace(use.name, verdicts.size());
    if (inserted) {
      OperatorVerdict verdict;
      verdict.python_name = use.name;
      verdict.resolution = map.resolve(use.name, table);
      verdicts.push_back(std::move(verdict));
    }
    verdicts[it->second].uses.push_back(use);
  }
  for (OperatorVerdict &verdict : verdicts)
    apply_coverage_verdict(verdict, table, library);
  return verdicts;
}

void add_environment_warnings(EnvironmentReport &environment) {
  if (environment.mps_fallback_enabled)
    environment.warnings.push_back(
        "PYTORCH_ENABLE_MPS_FALLBACK is on: operators without an MPS kernel silently run on the "
        "CPU, so a run that passes is not proof that it ran on MPS. The probe clears it for its "
        "own calls.");
  if (environment.mps_built && !environment.mps_available)
    environment.warnings.push_back(
        "this LibTorch has MPS built in, but no MPS device is available now (not a Mac with "
        "Apple silicon, macOS too old, or running under Rosetta)");
  if (environment.rosetta.value_or(false))
    environment.warnings.push_back(
        "this process runs under Rosetta translation: an x86_64 Python/LibTorch on an Apple "
        "silicon Mac cannot use MPS; install the arm64 build");
}

json to_json(const EnvironmentReport &environment) {
  json variables = json::object();
  for (const auto &[name, value] : environment.mps_variables)
    variables[name] = value;
  return json{
      {"libtorch_version", environment.libtorch_version},
      {"mps_built", environment.mps_built},
      {"mps_available", environment.mps_available},
      {"cuda_built", environment.cuda_built},
      {"cuda_available", environment.cuda_available},
      {"cuda_device_count", environment.cuda_device_count},
      {"os", {{"name", environment.os_name}, {"version", environment.os_version}}},
      {"arch", environment.arch},
      {"rosetta", environment.rosetta ? json(*environment.rosetta) : json(nullptr)},
      {"variables", variables},
      {"mps_fallback_enabled", environment.mps_fallback_enabled},
      {"fallback_cleared_for_probe", environment.fallback_cleared_for_probe},
      {"warnings", environment.warnings},
  };
}

namespace {

json finite_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json to_json(const LiveResult &live) {
  json out = {
      {"outcome", live.outcome},   {"overload", live.overload},           {"message", live.message},
      {"compared", live.compared}, {"random_output", live.random_output}, {"attempts", live.attempts}};
  if (!live.input_recipe.empty())
    out["input_recipe"] = live.input_recipe;
  if (!live.comparison.empty()) {
    out["comparison"] = live.comparison;
    out["tolerance_class"] = live.tolerance_class;
  }
  if (live.compared) {
    out["max_abs_diff"] = finite_or_null(live.max_abs_diff);
    out["max_rel_diff"] = finite_or_null(live.max_rel_diff);
    out["rtol"] = live.rtol;
    out["atol"] = live.atol;
    out["tolerance_adjusted"] = live.tolerance_adjusted;
  }
  return out;
}

json to_json(const NumericsSetup &numerics) {
  auto flag = [](const std::optional<bool> &value) { return value ? json(*value) : json(nullptr); };
  return json{{"tf32_cublas", flag(numerics.tf32_cublas)},
              {"tf32_cudnn", flag(numerics.tf32_cudnn)},
              {"note", numerics.note}};
}

json location(const std::string &path, std::uint32_t line) {
  return json{{"path", path}, {"line", line}};
}

} // namespace

json to_json(const ProbeOutput &output) {
  json operators = json::array();
  std::vector<std::string> without_mps, partly_without_mps;
  std::map<std::string, int> live_outcomes; // per distinct ATen operator
  std::set<std::string> counted;
  for (const OperatorVerdict &verdict : output.operators) {
    json uses = json::array();
    for (const ApiUse &use : verdict.uses)
      uses.push_back({{"path", use.path}, {"line", use.line}, {"count", use.count}});
    json live = json::array();
    for (const auto &[aten, result] : verdict.live) {
      json entry = to_json(result);
      entry["aten"] = aten;
      live.push_back(std::move(entry));
      if (counted.insert(aten).second)
        ++live_outcomes[result.outcome];
    }
    if (verdict.mps_outcome == "missing")
      without_mps.push_back(verdict.python_name);
    else if (verdict.mps_outcome == "partial")
      partly_without_mps.push_back(verdict.python_name);
    operators.push_back({
        {"name", verdict.python_name},
        {"uses", uses},
        {"aten", verdict.resolution.aten_names},
        {"mapping",
         {{"how", verdict.resolution.how},
          {"source", verdict.resolution.source},
          {"absent", verdict.resolution.absent}}},
        {"mps",
         {{"outcome", verdict.mps_outcome},
          {"evidence", verdict.mps_evidence},
          {"reason", verdict.mps_reason},
          {"missing_overloads", verdict.missing_overloads},
          {"forced_cpu_overloads", verdict.forced_cpu_overloads},
          {"first_release_with_mps",
           verdict.first_release_with_mps.empty() ? json(nullptr) : json(verdict.first_release_with_mps)}}},
        {"live", {{"evidence", verdict.live_evidence}, {"results", live}}},
    });
  }
  json findings = json::array();
  for (const FindingVerdict &verdict : output.findings)
    findings.push_back({
        {"kind", verdict.kind},
        {"rule", verdict.finding.rule},
        {"name", verdict.finding.name},
        {"location", location(verdict.finding.path, verdict.finding.line)},
        {"outcome", verdict.outcome},
        {"confirms", verdict.confirms ? json(*verdict.confirms) : json(nullptr)},
        {"evidence", verdict.evidence},
        {"reason", verdict.reason},
        {"details", verdict.details},
    });
  json downcasts = json::array();
  for (const DowncastVerdict &verdict : output.downcasts)
    downcasts.push_back({
        {"name", verdict.python_name},
        {"aten", verdict.aten_operator},
        {"outcome", verdict.outcome},
        {"evidence", "cpu-reference"},
        {"max_relative_error", finite_or_null(verdict.max_relative_error)},
        {"mean_relative_error", finite_or_null(verdict.mean_relative_error)},
        {"reason", verdict.reason},
        {"paths", verdict.paths},
    });
  json diagnostics = json::array();
  for (const ProbeDiagnostic &diagnostic : output.diagnostics)
    diagnostics.push_back({{"level", diagnostic.level},
                           {"path", diagnostic.path},
                           {"line", diagnostic.line},
                           {"code", diagnostic.code},
                           {"message", diagnostic.message}});
  std::string headline;
  if (!output.coverage_version.empty()) {
    headline = without_mps.empty()
                   ? "no operator used by your code lacks an MPS kernel altogether in PyTorch " +
                         output.coverage_version
                   : std::to_string(without_mps.size()) +
                         " operators used by your code have no MPS kernel in PyTorch " +
                         output.coverage_version;
    if (!partly_without_mps.empty())
      headline +=
          "; " + std::to_string(partly_without_mps.size()) + " more lack one in some overloads or modes";
  }
  return json{
      {"schema_version", kVerdictSchemaVersion},
      {"tool", "mpsaudit-probe"},
      {"report", output.report_path},
      {"target", output.target},
      {"coverage_table", output.coverage_version.empty() ? json(nullptr) : json(output.coverage_version)},
      {"environment", to_json(output.environment)},
      {"numerics", to_json(output.numerics)},
      {"operators", operators},
      {"findings", findings},
      {"downcast", downcasts},
      {"summary",
       {{"operators", output.operators.size()},
        {"operators_without_mps_kernel", without_mps},
        {"operators_partly_without_mps_kernel", partly_without_mps},
        {"headline", headline},
        {"live_attempted", output.live_attempted},
        {"live_inputs_built", output.live_built},
        {"live_outcomes", live_outcomes},
        {"live_inputs_share", output.live_attempted
                                  ? json(static_cast<double>(output.live_built) / output.live_attempted)
                                  : json(nullptr)}}},
      {"diagnostics", diagnostics},
  };
}

} // namespace mpsaudit::probe
