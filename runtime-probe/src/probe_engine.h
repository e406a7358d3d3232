// The live probe engine: calls ATen operators through the dispatcher on a
// target device with inputs built from their schemas, and classifies what
// happens. The target is a parameter: MPS on a Mac, the CPU in tests, CUDA on
// a CUDA machine; the code path is the same for all of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "verdicts.h"

namespace mpsaudit::probe {

// "cpu", "cuda", "mps", "meta" (a stand-in accelerator for tests: it mixes
// with the CPU the way a GPU does not), or "auto" (mps, else cuda, else cpu).
std::optional<c10::Device> parse_target(const std::string &name);
std::string target_name(const c10::Device &device);

struct DowncastMeasurement {
  std::string outcome; // measured | no-inputs | not-floating | random-output
  std::string overload;
  double max_relative_error = 0.0;
  double mean_relative_error = 0.0;
  std::string message;
};

class ProbeEngine {
public:
  explicit ProbeEngine(c10::Device target);

  const c10::Device &target() const { return target_; }

  // Tries the overloads of `aten_name` ("grid_sampler_2d") that a Python call
  // reaches (no out= variants), building inputs the CPU accepts, then runs the
  // accepted inputs on the target and compares with the CPU result.
  LiveResult probe_operator(const std::string &aten_name) const;

  // A float64 tensor created on, and copied to, the target.
  LiveResult probe_float64() const;

  // A factory call with no device (it lands on the CPU) combined with a tensor
  // on the target: confirms "tensor created without a device" findings.
  LiveResult probe_device_mismatch() const;

  // Runs `aten_name` on the CPU in float64 and in float32 on the same inputs.
  DowncastMeasurement downcast_error(const std::string &aten_name) const;

  // How the target's float32 precision was set up for the comparison
  // (TF32 off on CUDA).
  const NumericsSetup &numerics() const { return numerics_; }

private:
  c10::Device target_;
  NumericsSetup numerics_;
};

// Sorts an error message into not-implemented | dtype-unsupported | error.
std::string classify_error(const std::string &message, bool not_implemented_type);

} // namespace mpsaudit::probe
