// CUDA kernels of the fused_ops sample extension: an elementwise kernel with
// CPU and Python fallbacks, a warp-level segment softmax with neither, and
// host-side ops on cuBLAS and thrust.
#include <ATen/cuda/CUDAContext.h> // expect: MPS830
#include <c10/cuda/CUDAGuard.h> // expect: MPS830
#include <cublas_v2.h> // expect: MPS820
#include <thrust/device_ptr.h> // expect: MPS825
#include <thrust/sort.h> // expect: MPS825
#include <thrust/unique.h> // expect: MPS825
#include <torch/library.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor") // expect: MPS832

namespace fused_ops {

// out = a + alpha * b
template <typename scalar_t>
__global__ void scaled_add_kernel(const scalar_t *a, const scalar_t *b, scalar_t alpha, // expect: MPS801
                                  scalar_t *out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = a[i] + alpha * b[i];
}

__device__ float warp_max(float v) { // expect: MPS802
  for (int offset = 16; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset)); // expect: MPS806
  return v;
}

__device__ float warp_sum(float v) { // expect: MPS802
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset); // expect: MPS806
  return v;
}

// Softmax over each segment [offsets[s], offsets[s + 1]) of x, one block of
// 32 threads per segment. The running maximum is kept in double.
__global__ void segment_softmax_kernel(const float *x, const int64_t *offsets, // expect: MPS801, MPS805, MPS808
                                       float *out) {
  __shared__ float block_max;
  __shared__ double block_sum;
  const int64_t begin = offsets[blockIdx.x];
  const int64_t end = offsets[blockIdx.x + 1];
  float local_max = -INFINITY;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    local_max = fmaxf(local_max, x[i]);
  local_max = warp_max(local_max);
  if (threadIdx.x == 0)
    block_max = local_max;
  __syncthreads();
  float local_sum = 0.f;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    local_sum += __expf(x[i] - block_max);
  local_sum = warp_sum(local_sum);
  if (threadIdx.x == 0)
    block_sum = local_sum;
  __syncthreads();
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x)
    out[i] = __expf(x[i] - block_max) / static_cast<float>(block_sum);
}

at::Tensor scaled_add_cuda(const at::Tensor &a, const at::Tensor &b, double alpha) {
  CHECK_CUDA(a); // expect: MPS832
  CHECK_CUDA(b); // expect: MPS832
  const c10::cuda::CUDAGuard guard(a.device()); // expect: MPS830
  auto out = at::empty_like(a);
  const int64_t n = a.numel();
  const int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  auto stream = at::cuda::getCurrentCUDAStream(); // expect: MPS830
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "scaled_add", [&] { // expect: MPS833
    scaled_add_kernel<scalar_t><<<blocks, threads, 0, stream>>>( // expect: MPS804
        a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), static_cast<scalar_t>(alpha),
        out.data_ptr<scalar_t>(), n);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK(); // expect: MPS830
  return out;
}

at::Tensor segment_softmax_cuda(const at::Tensor &x, const at::Tensor &offsets) {
  CHECK_CUDA(x); // expect: MPS832
  auto out = at::empty_like(x);
  const int segments = static_cast<int>(offsets.numel() - 1);
  segment_softmax_kernel<<<segments, 32, 0, at::cuda::getCurrentCUDAStream()>>>( // expect: MPS804, MPS830
      x.data_ptr<float>(), offsets.data_ptr<int64_t>(), out.data_ptr<float>());
  cudaError_t status = cudaGetLastError(); // expect: MPS818
  TORCH_CHECK(status == cudaSuccess, cudaGetErrorString(status)); // expect: MPS818
  return out;
}

// x^T x for a row-major (rows, cols) float matrix, with cuBLAS.
at::Tensor gram_cuda(const at::Tensor &x) {
  CHECK_CUDA(x); // expect: MPS832
  const int rows = static_cast<int>(x.size(0));
  const int cols = static_cast<int>(x.size(1));
  auto out = at::empty({cols, cols}, x.options());
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle(); // expect: MPS820, MPS830
  const float one = 1.f, zero = 0.f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, cols, cols, rows, &one, // expect: MPS820
              x.data_ptr<float>(), cols, x.data_ptr<float>(), cols, &zero,
              out.data_ptr<float>(), cols);
  return out;
}

// The distinct values of x, sorted, with thrust on the current stream.
at::Tensor sorted_unique_cuda(const at::Tensor &x) {
  CHECK_CUDA(x); // expect: MPS832
  auto values = x.contiguous().clone();
  float *scratch = nullptr;
  cudaMalloc(&scratch, values.numel() * sizeof(float)); // expect: MPS814
  cudaMemcpyAsync(scratch, values.data_ptr<float>(), values.numel() * sizeof(float), // expect: MPS814
                  cudaMemcpyDeviceToDevice, at::cuda::getCurrentCUDAStream()); // expect: MPS830
  auto first = thrust::device_pointer_cast(scratch); // expect: MPS825
  auto policy = thrust::cuda::par.on(at::cuda::getCurrentCUDAStream()); // expect: MPS825, MPS830
  thrust::sort(policy, first, first + values.numel()); // expect: MPS825
  auto last = thrust::unique(policy, first, first + values.numel()); // expect: MPS825
  cudaStreamSynchronize(at::cuda::getCurrentCUDAStream()); // expect: MPS815, MPS830
  const int64_t count = last - first;
  auto result = at::empty({count}, values.options());
  cudaMemcpy(result.data_ptr<float>(), scratch, count * sizeof(float), cudaMemcpyDeviceToDevice); // expect: MPS814
  cudaFree(scratch); // expect: MPS814
  return result;
}

} // namespace fused_ops

TORCH_LIBRARY_IMPL(fused_ops, CUDA, m) {
  m.impl("scaled_add", &fused_ops::scaled_add_cuda); // expect: MPS841
  m.impl("segment_softmax", &fused_ops::segment_softmax_cuda); // expect: MPS840
  m.impl("gram", &fused_ops::gram_cuda); // expect: MPS840
  m.impl("sorted_unique", &fused_ops::sorted_unique_cuda); // expect: MPS840
}
