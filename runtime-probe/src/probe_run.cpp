#include "probe_run.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "probe_engine.h"

#ifndef MPSAUDIT_PROBE_DATA_DIR
#define MPSAUDIT_PROBE_DATA_DIR "."
#endif

namespace mpsaudit::probe {

namespace {

std::string env_or(const char *name, const std::string &fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

bool target_usable(const c10::Device &device, const EnvironmentReport &environment, std::string &why) {
  switch (device.type()) {
  case c10::DeviceType::MPS:
    if (!environment.mps_available) {
      why = environment.mps_built ? "MPS is built into this LibTorch but no MPS device is available"
                                  : "this LibTorch was built without MPS";
      return false;
    }
    return true;
  case c10::DeviceType::CUDA:
    if (!environment.cuda_available) {
      why = "no CUDA device is available to this LibTorch";
      return false;
    }
    return true;
  default:
    return true;
  }
}

std::string mps_fact_float64() {
  return "MPS has no float64: creating or moving a float64 tensor to MPS raises \"Cannot convert "
         "a MPS Tensor to float64 dtype\" in every release (aten/src/ATen/mps/EmptyTensor.cpp)";
}

} // namespace

// The installed copy when there is one, else the source tree of the build.
std::string data_root() {
#ifdef MPSAUDIT_PROBE_INSTALLED_DATA_DIR
  std::error_code error;
  if (std::filesystem::is_directory(MPSAUDIT_PROBE_INSTALLED_DATA_DIR "/coverage", error))
    return MPSAUDIT_PROBE_INSTALLED_DATA_DIR;
#endif
  return MPSAUDIT_PROBE_DATA_DIR;
}

std::string default_tables_dir() {
  return env_or("MPSAUDIT_PROBE_TABLES", data_root() + "/coverage");
}

std::string default_api_map_path() {
  return env_or("MPSAUDIT_PROBE_DATA", data_root() + "/data") + "/python-api-map.tsv";
}

ProbeOutput run_probe(const ProbeOptions &options, const EnvironmentReport &environment) {
  ProbeOutput output;
  output.report_path = options.report_path;
  output.environment = environment;
  ScanReport report = read_scan_report(options.report_path, output.diagnostics);

  std::vector<TableProblem> problems;
  CoverageLibrary library = CoverageLibrary::load(options.tables_dir, problems);
  PythonApiMap api_map = PythonApiMap::load(options.api_map_path, problems);
  for (const TableProblem &problem : problems)
    output.diagnostics.push_back({"warning", problem.path, problem.line, "probe-data", problem.message});
  std::string wanted = options.torch_version.empty() ? environment.libtorch_version : options.torch_version;
  const CoverageTable *table = library.closest(wanted);
  if (!table)
    output.diagnostics.push_back({"error", options.tables_dir, 0, "no-coverage-tables",
                                  "no coverage tables found; MPS verdicts are not-probeable"});
  else
    output.coverage_version = table->version;
  if (table && compare_versions(table->version, wanted) != 0)
    output.diagnostics.push_back(
        {"note", options.tables_dir, 0, "coverage-table-nearest",
         "no table for PyTorch " + wanted + "; using the nearest older one, " + table->version});

  // Operators: the coverage verdict, then the live probe on the target.
  CoverageTable empty_table;
  output.operators = coverage_verdicts(report.api_uses, api_map, table ? *table : empty_table, library);

  auto device = parse_target(options.target);
  std::string unusable;
  if (!device) {
    output.diagnostics.push_back({"error", "", 0, "bad-target", "unknown target '" + options.target + "'"});
  } else if (!target_usable(*device, environment, unusable)) {
    output.diagnostics.push_back({"warning", "", 0, "target-unavailable", unusable});
    device.reset();
  }
  output.target = device ? target_name(*device) : options.target;
  std::optional<ProbeEngine> engine;
  if (device) {
    engine.emplace(*device);
    output.numerics = engine->numerics();
  }
  bool on_mps = device && device->type() == c10::DeviceType::MPS;
  std::string live_evidence = device ? "live-" + target_name(*device) : "not-probeable";

  std::map<std::string, LiveResult> live_cache;
  for (OperatorVerdict &verdict : output.operators) {
    if (!engine || !options.live) {
      verdict.live_evidence = "not-probeable";
      continue;
    }
    verdict.live_evidence = live_evidence;
    int probed = 0;
    for (const std::string &aten : verdict.resolution.aten_names) {
      if (probed++ >= options.max_live_operators_per_api)
        break;
      auto cached = live_cache.find(aten);
      if (cached == live_cache.end()) {
        cached = live_cache.emplace(aten, engine->probe_operator(aten)).first;
        ++output.live_attempted;
        if (cached->second.outcome != "no-inputs" && cached->second.outcome != "not-found")
          ++output.live_built;
      }
      verdict.live.emplace_back(aten, cached->second);
    }
    if (!on_mps || verdict.live.empty())
      continue;
    // On MPS the live result is the stronger evidence.
    bool any_missing = false, all_ok = true, any_run = false;
    for (const auto &entry : verdict.live) {
      const LiveResult &live = entry.second;
      any_missing |= live.outcome == "not-implemented";
      all_ok &=
          live.outcome == "ok" || live.outcome == "not-comparable"; // random ops ran, values differ by design
      any_run |= live.outcome != "no-inputs" && live.outcome != "not-found";
    }
    if (!any_run)
      continue;
    verdict.mps_evidence = "live-mps";
    if (any_missing && verdict.mps_outcome != "missing" && verdict.mps_outcome != "partial") {
      verdict.mps_outcome = "partial";
      verdict.mps_reason = "the live probe on MPS raised NotImplementedError for at least one "
                           "operator (see live results), although the table has a kernel path";
    } else if (all_ok) {
      verdict.mps_reason += "; the live probe ran every probed operator on MPS";
    }
  }

  // Findings the probe can check.
  std::optional<LiveResult> float64_result, mismatch_result;
  std::set<std::string> float64_paths;
  for (const ReportFinding &finding : report.findings) {
    FindingVerdict verdict;
    verdict.finding = finding;
    switch (classify_finding(finding)) {
    case FindingProbe::Float64: {
      float64_paths.insert(finding.path);
      verdict.kind = "float64";
      if (!engine) {
        verdict.outcome = "not-probeable";
        verdict.evidence = "not-probeable";
        verdict.reason = "no usable target device; " + mps_fact_float64();
        break;
      }
      if (!float64_result)
        float64_result = engine->probe_float64();
      verdict.details = {{"target_outcome", float64_result->outcome},
                         {"target_message", float64_result->message}};
      if (on_mps) {
        verdict.evidence = "live-mps";
        verdict.outcome = float64_result->outcome == "ok" ? "runs" : "fails";
        verdict.confirms = float64_result->outcome != "ok";
        verdict.reason = verdict.confirms.value()
                             ? "float64 fails on this Mac's MPS device: " + float64_result->message
                             : "float64 ran on MPS, against every known release; check the LibTorch build";
      } else {
        verdict.evidence = "not-probeable";
        verdict.outcome = "not-probeable";
        verdict.reason = "the target is " + output.target + ", where float64 " +
                         (float64_result->outcome == "ok" ? "runs" : "fails") +
                         "; the MPS answer needs a Mac. " + mps_fact_float64();
      }
      break;
    }
    case FindingProbe::DeviceMismatch: {
      verdict.kind = "device-mismatch";
      if (!engine || device->type() == c10::DeviceType::CPU) {
        verdict.outcome = "not-probeable";
        verdict.evidence = "not-probeable";
        verdict.reason = "the target is the CPU, where a tensor made without a device is already "
                         "on the target; the mismatch shows only on an accelerator";
        break;
      }
      if (!mismatch_result)
        mismatch_result = engine->probe_device_mismatch();
      verdict.evidence = live_evidence;
      verdict.outcome = mismatch_result->outcome == "ok" ? "runs" : "fails";
      verdict.confirms = mismatch_result->outcome != "ok";
      verdict.details = {{"target_message", mismatch_result->message}};
      verdict.reason = verdict.confirms.value()
                           ? "a factory call without a device makes a CPU tensor, and combining it with a " +
                                 output.target + " tensor fails: " + mismatch_result->message
                           : "combining the tensors did not fail on " + output.target;
      break;
    }
    case FindingProbe::None:
      verdict.kind = "finding";
      verdict.outcome = "not-probeable";
      verdict.evidence = "not-probeable";
      verdict.reason = "no runtime probe exists for this finding (" + finding.rule + ")";
      break;
    }
    output.findings.push_back(std::move(verdict));
  }

  // Float64 downcast cost: the operators used in files with float64 findings,
  // run on the CPU in float64 and float32 (evidence cpu-reference).
  if (!float64_paths.empty() && options.live) {
    ProbeEngine cpu_engine(c10::Device(c10::DeviceType::CPU));
    std::map<std::string, std::size_t> by_operator;
    for (const OperatorVerdict &verdict : output.operators) {
      if (verdict.resolution.aten_names.empty())
        continue;
      std::vector<std::string> paths;
      for (const ApiUse &use : verdict.uses)
        if (float64_paths.count(use.path))
          paths.push_back(use.path);
      if (paths.empty())
        continue;
      const std::string &aten = verdict.resolution.aten_names.front();
      if (by_operator.count(aten) ||
          static_cast<int>(output.downcasts.size()) >= options.max_downcast_operators)
        continue;
      DowncastMeasurement measurement = cpu_engine.downcast_error(aten);
      DowncastVerdict downcast;
      downcast.python_name = verdict.python_name;
      downcast.aten_operator = measurement.overload.empty() ? aten : measurement.overload;
      downcast.outcome = measurement.outcome;
      downcast.max_relative_error = measurement.max_relative_error;
      downcast.mean_relative_error = measurement.mean_relative_error;
      downcast.reason = measurement.outcome == "measured"
                            ? "float32 on MPS would change this result by up to this relative "
                              "error on random inputs of the probe's shapes"
                            : measurement.message;
      downcast.paths = paths;
      by_operator[aten] = output.downcasts.size();
      output.downcasts.push_back(std::move(downcast));
    }
  }
  return output;
}

} // namespace mpsaudit::probe
