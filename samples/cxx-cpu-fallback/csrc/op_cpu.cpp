// The CPU implementations: what runs on a Mac.
#include <algorithm>

#include "op.h"

namespace boxops {

at::Tensor roi_mean_forward_cpu(const at::Tensor &features, const at::Tensor &rois) {
  TORCH_CHECK(features.dim() == 4, "features must be (N, C, H, W)");
  TORCH_CHECK(rois.dim() == 2 && rois.size(1) == 5, "rois must be (K, 5)");
  const int64_t height = features.size(2), width = features.size(3);
  auto output = at::zeros({rois.size(0), features.size(1)}, features.options());
  auto boxes = rois.to(at::kFloat).contiguous();
  const float *box = boxes.data_ptr<float>();
  for (int64_t k = 0; k < rois.size(0); ++k, box += 5) {
    const int64_t x0 = std::max<int64_t>(0, static_cast<int64_t>(box[1]));
    const int64_t y0 = std::max<int64_t>(0, static_cast<int64_t>(box[2]));
    const int64_t x1 = std::min<int64_t>(width, static_cast<int64_t>(box[3]));
    const int64_t y1 = std::min<int64_t>(height, static_cast<int64_t>(box[4]));
    if (x1 <= x0 || y1 <= y0)
      continue;
    const auto region = features[static_cast<int64_t>(box[0])].slice(1, y0, y1).slice(2, x0, x1);
    output[k] = region.mean({1, 2});
  }
  return output;
}

at::Tensor box_area_cpu(const at::Tensor &boxes) {
  const auto widths = (boxes.select(1, 2) - boxes.select(1, 0)).clamp_min(0);
  const auto heights = (boxes.select(1, 3) - boxes.select(1, 1)).clamp_min(0);
  return widths * heights;
}

} // namespace boxops
