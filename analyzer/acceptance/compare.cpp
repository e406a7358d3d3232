#include "acceptance/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include <fnmatch.h>

#include "acceptance/disagreements.h"
#include "core/text.h"

namespace mpsaudit::acceptance {

using nlohmann::json;

namespace {

std::string number_text(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

std::string percent_text(double fraction) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g%%", fraction * 100);
  return buffer;
}

std::string shape_text(const std::vector<std::int64_t> &shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string limited_list(const std::vector<std::string> &items, std::size_t limit = 5) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i)
    text += (i ? ", " : "") + items[i];
  if (items.size() > limit)
    text += " and " + std::to_string(items.size() - limit) + " more";
  return text;
}

void raise(CheckResult &check, CheckStatus status) {
  auto rank = [](CheckStatus s) {
    switch (s) {
    case CheckStatus::Pass:
      return 0;
    case CheckStatus::Skipped:
      return 1;
    case CheckStatus::Caveat:
      return 2;
    case CheckStatus::Fail:
      return 3;
    }
    return 0;
  };
  if (rank(status) > rank(check.status))
    check.status = status;
}

// MPS has no float64, and bfloat16 needs macOS 14: a Mac run that stores
// these as float32 (or float16) made the change MPS forces, not a mistake.
bool expected_mps_downcast(const std::string &reference, const std::string &candidate) {
  if (reference == "float64")
    return candidate == "float32";
  if (reference == "complex128")
    return candidate == "complex64";
  if (reference == "bfloat16")
    return candidate == "float16" || candidate == "float32";
  return false;
}

std::string strip_module_prefix(const std::string &key) {
  if (key.rfind("module.", 0) == 0)
    return key.substr(7);
  const std::size_t at = key.find(".module.");
  if (at != std::string::npos)
    return key.substr(0, at + 1) + key.substr(at + 8);
  return key;
}

// Pairs the checkpoints of two runs: same relative path, then same file
// name, then the only one left on each side.
std::vector<std::pair<const RunCheckpoint *, const RunCheckpoint *>>
pair_checkpoints(const std::vector<RunCheckpoint> &reference, const std::vector<RunCheckpoint> &candidate,
                 std::vector<const RunCheckpoint *> &reference_only,
                 std::vector<const RunCheckpoint *> &candidate_only) {
  std::vector<std::pair<const RunCheckpoint *, const RunCheckpoint *>> pairs;
  std::vector<bool> used(candidate.size(), false);
  std::vector<const RunCheckpoint *> unmatched;
  auto file_name = [](const std::string &path) { return path.substr(path.rfind('/') + 1); };
  for (const RunCheckpoint &left : reference) {
    std::size_t match = candidate.size();
    for (std::size_t i = 0; i < candidate.size() && match == candidate.size(); ++i)
      if (!used[i] && candidate[i].path == left.path)
        match = i;
    for (std::size_t i = 0; i < candidate.size() && match == candidate.size(); ++i)
      if (!used[i] && file_name(candidate[i].path) == file_name(left.path))
        match = i;
    if (match == candidate.size()) {
      unmatched.push_back(&left);
      continue;
    }
    used[match] = true;
    pairs.emplace_back(&left, &candidate[match]);
  }
  std::vector<const RunCheckpoint *> left_over;
  for (std::size_t i = 0; i < candidate.size(); ++i)
    if (!used[i])
      left_over.push_back(&candidate[i]);
  if (unmatched.size() == 1 && left_over.size() == 1) {
    pairs.emplace_back(unmatched.front(), left_over.front());
    unmatched.clear();
    left_over.clear();
  }
  reference_only = unmatched;
  candidate_only = left_over;
  return pairs;
}

using TensorsByKey = std::map<std::string, const checkpoint::TensorRecord *>;

// A checkpoint that calls code on load, or that could not be read, ends the
// comparison; one read in part is a caveat. False when the pair cannot be
// compared.
bool both_readable(const RunCheckpoint &reference, const RunCheckpoint &candidate, CheckResult &check) {
  for (const RunCheckpoint *side : {&reference, &candidate}) {
    if (side->summary.status == "hostile") {
      raise(check, CheckStatus::Fail);
      check.evidence.push_back(side->path + " calls code on torch.load (" +
                               limited_list(checkpoint::untrusted_globals(side->summary)) +
                               "); it was not loaded");
      return false;
    }
  }
  for (const RunCheckpoint *side : {&reference, &candidate}) {
    if (side->summary.status == "unreadable") {
      raise(check, CheckStatus::Caveat);
      check.evidence.push_back(side->path + " could not be read (" + side->summary.problem + ")");
      return false;
    }
    if (side->summary.status == "partial") {
      raise(check, CheckStatus::Caveat);
      check.evidence.push_back(side->path + " was read in part (" + side->summary.problem + ")");
    }
  }
  return true;
}

TensorsByKey tensors_by_key(const RunCheckpoint &checkpoint) {
  TensorsByKey tensors;
  for (const auto &tensor : checkpoint.summary.tensors)
    tensors[tensor.key] = &tensor;
  return tensors;
}

// Compares the key sets. Keys that differ only by the DataParallel prefix
// are a caveat, and `left` and `right` are keyed without it from then on.
// True when the keys were the same as saved.
bool compare_keys(TensorsByKey &left, TensorsByKey &right, const std::string &label, CheckResult &check) {
  std::vector<std::string> only_left, only_right;
  for (const auto &[key, tensor] : left)
    if (!right.count(key))
      only_left.push_back(key);
  for (const auto &[key, tensor] : right)
    if (!left.count(key))
      only_right.push_back(key);
  if (only_left.empty() && only_right.empty())
    return true;
  // DataParallel/DistributedDataParallel prefix every key with "module.";
  // a single-device Mac run does not. Same model, different wrapper.
  TensorsByKey left_stripped, right_stripped;
  for (const auto &[key, tensor] : left)
    left_stripped[strip_module_prefix(key)] = tensor;
  for (const auto &[key, tensor] : right)
    right_stripped[strip_module_prefix(key)] = tensor;
  bool same_after_strip = left_stripped.size() == right_stripped.size();
  for (const auto &[key, tensor] : left_stripped)
    same_after_strip = same_after_strip && right_stripped.count(key);
  if (same_after_strip) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(label +
                             ": keys differ only by the DataParallel \"module.\" prefix; strip it when "
                             "loading (load_state_dict on the bare model)");
    left = left_stripped;
    right = right_stripped;
  } else {
    raise(check, CheckStatus::Fail);
    if (!only_left.empty())
      check.evidence.push_back(label + ": " + counted(only_left.size(), "key") +
                               " only in the reference: " + limited_list(only_left));
    if (!only_right.empty())
      check.evidence.push_back(label + ": " + counted(only_right.size(), "key") +
                               " only in the Mac run: " + limited_list(only_right));
  }
  return false;
}

struct TensorChanges {
  std::vector<std::string> shapes, dtypes, downcasts;
  std::set<std::string> reference_devices, candidate_devices;
  bool none() const { return shapes.empty() && dtypes.empty() && downcasts.empty(); }
};

// The shape and dtype changes of the tensors both sides hold, and the
// devices each side was saved from.
TensorChanges tensor_changes(const TensorsByKey &left, const TensorsByKey &right) {
  TensorChanges changes;
  for (const auto &[key, tensor] : left) {
    changes.reference_devices.insert(tensor->device);
    auto it = right.find(key);
    if (it == right.end())
      continue;
    const checkpoint::TensorRecord &other = *it->second;
    if (tensor->shape != other.shape)
      changes.shapes.push_back(key + " " + shape_text(tensor->shape) + " -> " + shape_text(other.shape));
    if (tensor->dtype != other.dtype) {
      const std::string change = key + " " + tensor->dtype + " -> " + other.dtype;
      (expected_mps_downcast(tensor->dtype, other.dtype) ? changes.downcasts : changes.dtypes)
          .push_back(change);
    }
  }
  for (const auto &[key, tensor] : right)
    changes.candidate_devices.insert(tensor->device);
  return changes;
}

void report_tensor_changes(const TensorChanges &changes, const std::string &label, CheckResult &check) {
  if (!changes.shapes.empty()) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(label + ": " + counted(changes.shapes.size(), "shape") +
                             " differ: " + limited_list(changes.shapes));
  }
  if (!changes.dtypes.empty()) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(label + ": " + counted(changes.dtypes.size(), "dtype") +
                             " differ: " + limited_list(changes.dtypes));
  }
  if (!changes.downcasts.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(label + ": " + counted(changes.downcasts.size(), "tensor") +
                             " downcast as MPS requires (MPS has no float64; bfloat16 needs macOS 14): " +
                             limited_list(changes.downcasts) +
                             ". Numerics differ from the reference by design; compare metrics, not bits.");
  }
}

std::string devices_text(const std::set<std::string> &devices) {
  std::string text;
  for (const auto &device : devices)
    text += (text.empty() ? "" : ", ") + device;
  return text;
}

void compare_checkpoint_pair(const RunCheckpoint &reference, const RunCheckpoint &candidate,
                             CheckResult &check) {
  const std::string label =
      reference.path == candidate.path ? reference.path : reference.path + " vs " + candidate.path;
  if (!both_readable(reference, candidate, check))
    return;
  TensorsByKey left = tensors_by_key(reference);
  TensorsByKey right = tensors_by_key(candidate);
  const bool same_keys = compare_keys(left, right, label, check);
  const TensorChanges changes = tensor_changes(left, right);
  report_tensor_changes(changes, label, check);
  if (same_keys && changes.none())
    check.evidence.push_back(label + ": " + counted(left.size(), "tensor") +
                             ", same keys, shapes and dtypes");
  if (changes.reference_devices != changes.candidate_devices)
    check.evidence.push_back(label + ": saved from " + devices_text(changes.reference_devices) + " vs " +
                             devices_text(changes.candidate_devices) + " (expected across platforms)");
}

CheckResult check_checkpoints(const RunDirectory &reference, const RunDirectory &candidate) {
  CheckResult check{1, "checkpoints", "Checkpoints: keys, shapes and dtypes", CheckStatus::Pass, "", {}};
  if (reference.checkpoints.empty() && candidate.checkpoints.empty()) {
    check.status = CheckStatus::Skipped;
    check.summary = "neither run holds a checkpoint: the models' structure was not compared";
    return check;
  }
  if (reference.checkpoints.empty() || candidate.checkpoints.empty()) {
    check.status = CheckStatus::Caveat;
    check.summary = std::string("only the ") + (reference.checkpoints.empty() ? "Mac run" : "reference") +
                    " holds checkpoints: the models' structure was not compared";
    return check;
  }
  std::vector<const RunCheckpoint *> reference_only, candidate_only;
  const auto pairs =
      pair_checkpoints(reference.checkpoints, candidate.checkpoints, reference_only, candidate_only);
  for (const auto &[left, right] : pairs)
    compare_checkpoint_pair(*left, *right, check);
  for (const RunCheckpoint *only : reference_only) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(only->path + " has no counterpart in the Mac run");
  }
  for (const RunCheckpoint *only : candidate_only) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(only->path + " (Mac run) has no counterpart in the reference");
  }
  switch (check.status) {
  case CheckStatus::Pass:
    check.summary = counted(pairs.size(), "checkpoint pair") + " with the same keys, shapes and dtypes";
    break;
  case CheckStatus::Caveat:
    check.summary =
        "the checkpoints hold the same model, with differences MPS explains or that could not be checked";
    break;
  default:
    check.summary = "the checkpoints do not hold the same model: the runs diverged in structure";
    break;
  }
  return check;
}

bool key_matches(const std::vector<std::string> &patterns, const std::string &key) {
  const std::string last = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
  for (const std::string &pattern : patterns)
    if (glob_match(pattern, key) || glob_match(pattern, last))
      return true;
  return false;
}

bool is_seed_key(const std::string &key) {
  const std::size_t dot = key.rfind('.');
  return to_lower(dot == std::string::npos ? key : key.substr(dot + 1)).find("seed") != std::string::npos;
}

using Config = std::map<std::string, std::string>;

// Each side's config: the values that differ, the keys one side lacks, the
// differences a platform explains, and the seeds (key -> reference, candidate).
struct ConfigComparison {
  std::map<std::string, std::pair<std::string, std::string>> seeds;
  std::vector<std::string> differences, only_reference, only_candidate, platform;
};

ConfigComparison compare_config(const Config &reference, const Config &candidate,
                                const CompareOptions &options) {
  ConfigComparison comparison;
  for (const auto &[key, value] : reference) {
    if (is_seed_key(key))
      comparison.seeds[key].first = value;
    auto it = candidate.find(key);
    if (it == candidate.end()) {
      if (!is_seed_key(key) && !key_matches(options.platform_config_keys, key) && !candidate.empty())
        comparison.only_reference.push_back(key);
    } else if (it->second != value) {
      if (is_seed_key(key))
        continue;
      (key_matches(options.platform_config_keys, key) ? comparison.platform : comparison.differences)
          .push_back(key + ": " + value + " -> " + it->second);
    }
  }
  for (const auto &[key, value] : candidate) {
    if (is_seed_key(key))
      comparison.seeds[key].second = value;
    if (!reference.count(key) && !is_seed_key(key) && !key_matches(options.platform_config_keys, key) &&
        !reference.empty())
      comparison.only_candidate.push_back(key);
  }
  return comparison;
}

void report_seeds(const std::map<std::string, std::pair<std::string, std::string>> &seeds,
                  CheckResult &check) {
  std::vector<std::string> same_seeds, different_seeds, one_sided_seeds;
  for (const auto &[key, values] : seeds) {
    if (values.first.empty() || values.second.empty())
      one_sided_seeds.push_back(key + " (" + (values.first.empty() ? "Mac run" : "reference") + " only)");
    else if (values.first == values.second)
      same_seeds.push_back(key + "=" + values.first);
    else
      different_seeds.push_back(key + ": " + values.first + " -> " + values.second);
  }
  if (seeds.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("no seed in either run's config: metric differences may be chance");
  }
  if (!different_seeds.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("different seeds: " + limited_list(different_seeds) +
                             "; rerun with the same seed (torch.manual_seed also seeds MPS)");
  }
  if (!one_sided_seeds.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("seeds recorded in one run only: " + limited_list(one_sided_seeds));
  }
  if (!same_seeds.empty())
    check.evidence.push_back("same seeds: " + limited_list(same_seeds));
}

void report_config_differences(const ConfigComparison &comparison, CheckResult &check) {
  if (!comparison.differences.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(counted(comparison.differences.size(), "config value") +
                             " differ: " + limited_list(comparison.differences, 8));
  }
  if (!comparison.only_reference.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("config keys only in the reference: " + limited_list(comparison.only_reference));
  }
  if (!comparison.only_candidate.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("config keys only in the Mac run: " + limited_list(comparison.only_candidate));
  }
  if (!comparison.platform.empty())
    check.evidence.push_back("expected platform differences: " + limited_list(comparison.platform, 8));
}

// The torch release is part of the experiment: operator coverage and
// numerics change between releases. Local builds (+cu121) differ by design.
void compare_torch_releases(const RunDirectory &reference, const RunDirectory &candidate,
                            CheckResult &check) {
  const InterpreterRecord *reference_python = reference.interpreter();
  const InterpreterRecord *candidate_python = candidate.interpreter();
  if (!reference_python || !candidate_python || reference_python->status != "ok" ||
      candidate_python->status != "ok")
    return;
  const std::string &left = reference_python->torch.version, &right = candidate_python->torch.version;
  if (torch_release(left) != torch_release(right)) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("different torch releases: " + left + " (reference) vs " + right +
                             " (Mac run); install the same release on both to compare like with like");
  } else {
    check.evidence.push_back("same torch release: " + left + " vs " + right);
  }
}

CheckResult check_seeds_and_config(const RunDirectory &reference, const RunDirectory &candidate,
                                   const CompareOptions &options) {
  CheckResult check{2, "seeds-config", "Seeds and configuration", CheckStatus::Pass, "", {}};
  if (reference.config.empty() && candidate.config.empty()) {
    check.status = CheckStatus::Skipped;
    check.summary = "neither run holds a config or seed file: cannot show they are the same experiment";
    return check;
  }
  for (const auto *run : {&reference, &candidate})
    if (run->config.empty()) {
      raise(check, CheckStatus::Caveat);
      check.evidence.push_back(std::string("the ") + (run == &reference ? "reference" : "Mac run") +
                               " holds no config or seed file");
    }
  const ConfigComparison comparison = compare_config(reference.config, candidate.config, options);
  report_seeds(comparison.seeds, check);
  report_config_differences(comparison, check);
  compare_torch_releases(reference, candidate, check);
  check.summary =
      check.status == CheckStatus::Pass
          ? "same seeds and configuration (" + counted(reference.config.size(), "value") + " compared)"
          : "seeds or configuration differ or are missing: the runs are not yet shown to be the same "
            "experiment";
  return check;
}

Tolerance tolerance_for(const std::string &metric, const CompareOptions &options) {
  for (const MetricTolerance &entry : options.metric_tolerances)
    if (glob_match(entry.pattern, metric))
      return entry.tolerance;
  return options.default_tolerance;
}

bool within(double reference, double candidate, const Tolerance &tolerance) {
  if (std::isnan(reference) || std::isnan(candidate))
    return std::isnan(reference) && std::isnan(candidate);
  if (std::isinf(reference) || std::isinf(candidate))
    return reference == candidate;
  return std::fabs(candidate - reference) <= tolerance.atol + tolerance.rtol * std::fabs(reference);
}

std::string tolerance_text(const Tolerance &tolerance) {
  return "rtol " + number_text(tolerance.rtol) + ", atol " + number_text(tolerance.atol);
}

std::vector<double> common_steps(const MetricSeries &series, const MetricSeries &other) {
  std::vector<double> common;
  for (const auto &[step, value] : series)
    if (other.count(step))
      common.push_back(step);
  return common;
}

// Over a metric's common steps: the largest relative gap and its step,
// where the Mac run first turns NaN, and how many steps are beyond tolerance.
struct StepGaps {
  double worst_fraction = 0, worst_step = 0;
  double first_nan_step = std::nan("");
  std::size_t steps_beyond = 0;
};

StepGaps step_gaps(const std::vector<double> &common, const MetricSeries &series, const MetricSeries &other,
                   const Tolerance &tolerance) {
  StepGaps gaps;
  gaps.worst_step = common.front();
  for (double step : common) {
    const double a = series.at(step), b = other.at(step);
    if (std::isnan(b) && !std::isnan(a) && std::isnan(gaps.first_nan_step))
      gaps.first_nan_step = step;
    if (!within(a, b, tolerance))
      ++gaps.steps_beyond;
    const double fraction = std::fabs(b - a) / std::max(std::fabs(a), 1e-12);
    if (std::isfinite(fraction) && fraction > gaps.worst_fraction) {
      gaps.worst_fraction = fraction;
      gaps.worst_step = step;
    }
  }
  return gaps;
}

// Compares one metric at the `common` steps of both runs and adds its
// evidence; true when it is within tolerance.
bool metric_within(const std::string &name, const MetricSeries &series, const MetricSeries &other,
                   const std::vector<double> &common, const CompareOptions &options, CheckResult &check) {
  const Tolerance tolerance = tolerance_for(name, options);
  // The last common step decides by default: runs on different hardware
  // drift step by step, and a lab judges where training ends.
  const double last = common.back();
  const double ref_value = series.at(last), mac_value = other.at(last);
  bool ok = within(ref_value, mac_value, tolerance);
  const StepGaps gaps = step_gaps(common, series, other, tolerance);
  if (options.every_step && gaps.steps_beyond > 0)
    ok = false;
  std::string line = name + " at step " + number_text(last) + ": reference " + number_text(ref_value) +
                     ", Mac " + number_text(mac_value);
  if (std::isfinite(ref_value) && std::isfinite(mac_value))
    line += " (" + percent_text(std::fabs(mac_value - ref_value) / std::max(std::fabs(ref_value), 1e-12)) +
            " apart)";
  line += "; tolerance " + tolerance_text(tolerance) + ": " + (ok ? "within" : "BEYOND");
  if (common.size() > 1)
    line += "; largest gap over " + counted(common.size(), "common step") + ": " +
            percent_text(gaps.worst_fraction) + " at step " + number_text(gaps.worst_step) +
            (options.every_step ? " (" + std::to_string(gaps.steps_beyond) + " beyond tolerance)" : "");
  check.evidence.push_back(line);
  if (!std::isnan(gaps.first_nan_step)) {
    ok = false;
    check.evidence.push_back(name + " is NaN in the Mac run from step " + number_text(gaps.first_nan_step) +
                             " where the reference is finite");
  }
  return ok;
}

// The reference's metrics by what became of them.
struct MetricLists {
  std::vector<std::string> compared, ignored, only_reference, beyond;
};

MetricLists compare_each_metric(const RunDirectory &reference, const RunDirectory &candidate,
                                const CompareOptions &options, CheckResult &check) {
  MetricLists lists;
  for (const auto &[name, series] : reference.metrics) {
    if (key_matches(options.ignored_metrics, to_lower(name))) {
      lists.ignored.push_back(name);
      continue;
    }
    auto it = candidate.metrics.find(name);
    if (it == candidate.metrics.end()) {
      lists.only_reference.push_back(name);
      continue;
    }
    const std::vector<double> common = common_steps(series, it->second);
    if (common.empty()) {
      raise(check, CheckStatus::Caveat);
      check.evidence.push_back(name + ": no step in common");
      continue;
    }
    lists.compared.push_back(name);
    if (!metric_within(name, series, it->second, common, options, check)) {
      raise(check, CheckStatus::Fail);
      lists.beyond.push_back(name);
    }
  }
  return lists;
}

void report_uncompared_metrics(const MetricLists &lists, const RunDirectory &reference,
                               const RunDirectory &candidate, const CompareOptions &options,
                               CheckResult &check) {
  std::vector<std::string> only_candidate;
  for (const auto &[name, series] : candidate.metrics)
    if (!reference.metrics.count(name) && !key_matches(options.ignored_metrics, to_lower(name)))
      only_candidate.push_back(name);
  if (!lists.only_reference.empty())
    check.evidence.push_back("logged by the reference only: " + limited_list(lists.only_reference));
  if (!only_candidate.empty())
    check.evidence.push_back("logged by the Mac run only: " + limited_list(only_candidate));
  if (!lists.ignored.empty())
    check.evidence.push_back("not compared (timing and memory differ by platform): " +
                             limited_list(lists.ignored));
}

// Where each run's logs end: a Mac run that stopped early compares fewer steps.
void compare_log_ends(const RunDirectory &reference, const RunDirectory &candidate, CheckResult &check) {
  double reference_end = -INFINITY, candidate_end = -INFINITY;
  for (const auto &[name, series] : reference.metrics)
    if (!series.empty())
      reference_end = std::max(reference_end, series.rbegin()->first);
  for (const auto &[name, series] : candidate.metrics)
    if (!series.empty())
      candidate_end = std::max(candidate_end, series.rbegin()->first);
  if (candidate_end < reference_end) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("the Mac run's logs end at step " + number_text(candidate_end) +
                             ", the reference's at step " + number_text(reference_end) +
                             ": compared up to the last common step");
  }
}

CheckResult check_metrics(const RunDirectory &reference, const RunDirectory &candidate,
                          const CompareOptions &options) {
  CheckResult check{3, "metrics", "Metrics within tolerance", CheckStatus::Pass, "", {}};
  if (reference.metrics.empty() || candidate.metrics.empty()) {
    check.status =
        reference.metrics.empty() && candidate.metrics.empty() ? CheckStatus::Skipped : CheckStatus::Caveat;
    check.summary = reference.metrics.empty() && candidate.metrics.empty()
                        ? "neither run holds a metric log (CSV or JSON lines with a step column)"
                        : std::string("only the ") + (reference.metrics.empty() ? "Mac run" : "reference") +
                              " holds a metric log: nothing to compare";
    return check;
  }
  const MetricLists lists = compare_each_metric(reference, candidate, options, check);
  report_uncompared_metrics(lists, reference, candidate, options, check);
  compare_log_ends(reference, candidate, check);
  if (lists.compared.empty()) {
    raise(check, CheckStatus::Caveat);
    check.summary = "no metric is logged by both runs at a common step";
  } else if (!lists.beyond.empty()) {
    check.summary =
        counted(lists.beyond.size(), "metric") + " beyond tolerance: " + limited_list(lists.beyond);
  } else {
    check.summary = counted(lists.compared.size(), "metric") + " within tolerance at the " +
                    (options.every_step ? "common steps" : "last common step");
  }
  return check;
}

// Whether the Mac run's interpreter could use MPS at all.
void report_mac_interpreter(const InterpreterRecord &mac, CheckResult &check) {
  const std::string who = mac.executable.empty() ? mac.requested : mac.executable;
  if (mac.status != "ok") {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(who + " could not import torch: " + mac.error);
  } else if (mac.machine_differs() || mac.rosetta.value_or(false)) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(who + " is a " + mac.machine + " process on a " + mac.native_machine +
                             " Mac (Rosetta): MPS cannot be used from it");
  } else if (!mac.torch.mps_built.value_or(false)) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(who + "'s torch " + mac.torch.version +
                             " was built without MPS: the run used the CPU");
  } else if (!mac.torch.mps_available.value_or(false)) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(who + "'s torch " + mac.torch.version +
                             " has MPS built in but not available: the run used the CPU");
  } else {
    check.evidence.push_back(who + ": torch " + mac.torch.version + ", MPS built and available" +
                             (mac.chip.empty() ? std::string() : " on " + mac.chip) +
                             (mac.os_version.empty() ? std::string() : ", macOS " + mac.os_version));
  }
}

// What the Mac run's environment record shows; true when it ran with
// PYTORCH_ENABLE_MPS_FALLBACK on.
bool report_mac_environment(const RunDirectory &candidate, bool candidate_is_mac, CheckResult &check) {
  const InterpreterRecord *mac = candidate.interpreter();
  if (!candidate.env) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(
        "the Mac run holds no environment record (mpsaudit env -o env.json): nothing shows "
        "that it ran on MPS");
    return false;
  }
  if (!mac) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back("the Mac run's environment record holds no interpreter that answered");
    return false;
  }
  if (!candidate_is_mac)
    check.evidence.push_back("neither environment record is from macOS: the second run is treated as the "
                             "MPS run");
  report_mac_interpreter(*mac, check);
  const auto it = mac->variables.find("PYTORCH_ENABLE_MPS_FALLBACK");
  if (it == mac->variables.end() || !fallback_enabled(it->second))
    return false;
  raise(check, CheckStatus::Caveat);
  check.evidence.push_back("PYTORCH_ENABLE_MPS_FALLBACK=" + it->second +
                           " in the Mac run's environment: missing operators ran on the CPU without "
                           "failing; rerun with it unset to show the run is native");
  return true;
}

// The fallback warnings and MPS errors of the Mac run's logs.
void report_fallback_evidence(const RunDirectory &candidate, bool fallback_on, CheckResult &check) {
  std::vector<std::string> fell_back, missing, errors;
  for (const FallbackEvidence &evidence : candidate.fallbacks) {
    const std::string where = evidence.path + ":" + std::to_string(evidence.line);
    const std::string what = evidence.op.empty() ? evidence.text : evidence.op;
    if (evidence.kind == "fallback-warning")
      fell_back.push_back(what + " (" + where + ")");
    else if (evidence.kind == "not-implemented")
      missing.push_back(what + " (" + where + ")");
    else
      errors.push_back(what + " (" + where + ")");
  }
  if (!fell_back.empty()) {
    raise(check, CheckStatus::Caveat);
    check.evidence.push_back(counted(fell_back.size(), "operator") +
                             " fell back to the CPU in the Mac run: " + limited_list(fell_back));
  }
  if (!missing.empty()) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back(counted(missing.size(), "operator") +
                             " not implemented on MPS stopped the Mac run: " + limited_list(missing));
  }
  if (!errors.empty()) {
    raise(check, CheckStatus::Fail);
    check.evidence.push_back("MPS errors in the Mac run's logs: " + limited_list(errors, 3));
  }
  if (!candidate.fallbacks.empty())
    return;
  if (candidate.log_files.empty())
    check.evidence.push_back("the Mac run holds no log file (*.log, *.txt, *.out, *.err) to search for "
                             "fallback warnings" +
                             std::string(fallback_on ? ""
                                                     : "; with the fallback off, a missing operator "
                                                       "would have stopped the run"));
  else
    check.evidence.push_back("no fallback warning or MPS error in " +
                             counted(candidate.log_files.size(), "log") + " of the Mac run");
}

std::string fallbacks_summary(CheckStatus status) {
  switch (status) {
  case CheckStatus::Pass:
    return "the Mac run used MPS and recorded no CPU fallback";
  case CheckStatus::Caveat:
    return "the Mac run may have run operators on the CPU, or cannot show it used MPS";
  default:
    return "the Mac run did not run on MPS, or stopped on an operator MPS lacks";
  }
}

CheckResult check_fallbacks(const RunDirectory &reference, const RunDirectory &candidate,
                            bool candidate_is_mac) {
  CheckResult check{4, "fallbacks", "CPU fallbacks and MPS use", CheckStatus::Pass, "", {}};
  const bool fallback_on = report_mac_environment(candidate, candidate_is_mac, check);
  report_fallback_evidence(candidate, fallback_on, check);
  if (!reference.fallbacks.empty())
    check.evidence.push_back("the reference's logs also record " +
                             counted(reference.fallbacks.size(), "MPS fallback") +
                             ": was the reference run on a Mac?");
  check.summary = fallbacks_summary(check.status);
  return check;
}

std::string first_words(const CheckResult &check) {
  return check.id + ": " + check.summary;
}

} // namespace

std::vector<std::string> CompareOptions::default_ignored_metrics() {
  return {"*time*",       "*elapsed*",     "*duration*",   "*per_sec*",  "*per_second*",
          "*throughput*", "*samples_per*", "*tokens_per*", "*memory*",   "*mem_*",
          "*_mem",        "*gpu*",         "*runtime*",    "*it_per_s*", "*speed*"};
}

std::vector<std::string> CompareOptions::default_platform_config_keys() {
  return {"*device*",   "*accelerator*", "*backend*",  "*cuda*",      "*mps*",  "gpus",
          "num_gpus",   "*_dir",         "dir",        "*_directory", "*_path", "path",
          "*_root",     "*hostname*",    "host",       "*timestamp*", "*date*", "num_workers",
          "pin_memory", "*wandb*",       "*run_name*", "*run_id*",    "_*"};
}

bool glob_match(const std::string &pattern, const std::string &text) {
  return ::fnmatch(to_lower(pattern).c_str(), to_lower(text).c_str(), 0) == 0;
}

std::string_view to_string(CheckStatus status) {
  switch (status) {
  case CheckStatus::Pass:
    return "pass";
  case CheckStatus::Caveat:
    return "caveat";
  case CheckStatus::Fail:
    return "fail";
  case CheckStatus::Skipped:
    return "skipped";
  }
  return "skipped";
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
  case Verdict::Native:
    return "native";
  case Verdict::Dual:
    return "dual";
  case Verdict::Stopped:
    return "stopped";
  }
  return "dual";
}

Verdict verdict_of(const std::vector<CheckResult> &checks) {
  Verdict verdict = Verdict::Native;
  for (const CheckResult &check : checks) {
    if (check.status == CheckStatus::Fail)
      return Verdict::Stopped;
    if (check.status == CheckStatus::Caveat || check.status == CheckStatus::Skipped)
      verdict = Verdict::Dual;
  }
  return verdict;
}

Comparison compare_runs(const RunDirectory &run_a, const RunDirectory &run_b, const CompareOptions &options) {
  Comparison comparison;
  const bool a_mac = run_a.on_macos(), b_mac = run_b.on_macos();
  const bool swap = a_mac && !b_mac;
  const RunDirectory &reference = swap ? run_b : run_a;
  const RunDirectory &candidate = swap ? run_a : run_b;
  comparison.reference_path = reference.path;
  comparison.candidate_path = candidate.path;
  comparison.roles_from = a_mac != b_mac ? "environment records (the macOS run is the Mac run)"
                                         : "argument order (RUN_A reference, RUN_B Mac run)";
  for (const auto *run : {&run_a, &run_b})
    for (const Diagnostic &diagnostic : run->diagnostics) {
      Diagnostic named = diagnostic;
      if (named.path != run->path)
        named.path = run->path + "/" + named.path;
      comparison.diagnostics.push_back(std::move(named));
    }

  comparison.checks.push_back(check_checkpoints(reference, candidate));
  comparison.checks.push_back(check_seeds_and_config(reference, candidate, options));
  comparison.checks.push_back(check_metrics(reference, candidate, options));
  comparison.checks.push_back(check_fallbacks(reference, candidate, candidate.on_macos()));
  comparison.verdict = verdict_of(comparison.checks);

  std::vector<std::string> failed, caveats;
  for (const CheckResult &check : comparison.checks) {
    if (check.status == CheckStatus::Fail)
      failed.push_back(first_words(check));
    else if (check.status == CheckStatus::Caveat || check.status == CheckStatus::Skipped)
      caveats.push_back(first_words(check));
  }
  switch (comparison.verdict) {
  case Verdict::Native:
    comparison.headline = "native: the Mac run reproduces the reference on every check";
    break;
  case Verdict::Dual:
    comparison.headline = "dual: nothing failed, but the evidence is not complete (" +
                          limited_list(caveats, 4) +
                          "); develop on the Mac and keep the Linux run as the reference";
    break;
  case Verdict::Stopped:
    comparison.headline =
        "stopped: the Mac run does not reproduce the reference (" + limited_list(failed, 4) + ")";
    break;
  }
  return comparison;
}

json to_json(const Comparison &comparison) {
  json checks = json::array();
  for (const CheckResult &check : comparison.checks)
    checks.push_back({{"order", check.order},
                      {"id", check.id},
                      {"title", check.title},
                      {"status", std::string(to_string(check.status))},
                      {"summary", check.summary},
                      {"evidence", check.evidence}});
  json diagnostics = json::array();
  for (const Diagnostic &diagnostic : comparison.diagnostics)
    diagnostics.push_back({{"level", std::string(to_string(diagnostic.level))},
                           {"path", diagnostic.path},
                           {"line", diagnostic.line},
                           {"code", diagnostic.code},
                           {"message", diagnostic.message}});
  return json{{"schema", "mpsaudit-comparison"},
              {"schema_version", 1},
              {"reference", comparison.reference_path},
              {"mac_run", comparison.candidate_path},
              {"roles_from", comparison.roles_from},
              {"verdict", std::string(to_string(comparison.verdict))},
              {"headline", comparison.headline},
              {"checks", checks},
              {"diagnostics", diagnostics}};
}

std::string comparison_text(const Comparison &comparison) {
  std::ostringstream out;
  out << "Reference: " << comparison.reference_path << "\nMac run:   " << comparison.candidate_path
      << "\n(roles from " << comparison.roles_from << ")\n";
  for (const CheckResult &check : comparison.checks) {
    out << "\n"
        << check.order << ". " << check.title << ": " << to_string(check.status) << "\n   " << check.summary
        << "\n";
    for (const std::string &line : check.evidence)
      out << "   - " << line << "\n";
  }
  if (!comparison.diagnostics.empty()) {
    out << "\nDiagnostics:\n";
    for (const Diagnostic &diagnostic : comparison.diagnostics)
      out << "  " << diagnostic.path
          << (diagnostic.line ? ":" + std::to_string(diagnostic.line) : std::string()) << ": "
          << to_string(diagnostic.level) << ": " << diagnostic.message << "\n";
  }
  out << "\nVerdict: " << comparison.headline << "\n";
  return out.str();
}

} // namespace mpsaudit::acceptance
