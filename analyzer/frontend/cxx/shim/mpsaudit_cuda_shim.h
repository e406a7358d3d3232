// mpsaudit CUDA shim.
//
// mpsaudit parses CUDA sources with clang and no CUDA SDK (-nocudainc). This
// header, force-included (-include) from an in-memory file, supplies what the
// SDK's headers would: the execution-space attributes, the built-in index
// variables, dim3, stream/event handle types, the launch-configuration entry
// points clang needs for <<<...>>>, and declarations of the common device
// intrinsics so that kernels produce a clean AST. It is embedded in the binary
// (see CMakeLists.txt), so an installed mpsaudit needs no extra file.
//
// It describes CUDA only as far as parsing needs; nothing here is executed.
#ifndef MPSAUDIT_CUDA_SHIM_H
#define MPSAUDIT_CUDA_SHIM_H

#ifdef __CUDA__ /* clang defines __CUDA__ when parsing CUDA (-x cuda) */

#define __CUDACC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 1
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

typedef __SIZE_TYPE__ size_t;

struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

struct float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
struct int2 {
  int x, y;
};
struct int3 {
  int x, y, z;
};
struct int4 {
  int x, y, z, w;
};
struct uint2 {
  unsigned int x, y;
};
struct uint4 {
  unsigned int x, y, z, w;
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError { cudaSuccess = 0 };
typedef enum cudaError cudaError_t;

// The launch configuration that clang lowers <<<grid, block, smem, stream>>>
// to: the older and the newer (CUDA 9.2+) entry point.
extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared_bytes = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes = 0,
                                                cudaStream_t stream = 0);

__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
template <typename T> __device__ T __shfl_sync(unsigned int mask, T v, int lane, int width = 32);
template <typename T> __device__ T __shfl_up_sync(unsigned int mask, T v, unsigned int d, int width = 32);
template <typename T> __device__ T __shfl_down_sync(unsigned int mask, T v, unsigned int d, int width = 32);
template <typename T> __device__ T __shfl_xor_sync(unsigned int mask, T v, int lane_mask, int width = 32);
template <typename T> __device__ T atomicAdd(T *address, T value);
template <typename T> __device__ T atomicSub(T *address, T value);
template <typename T> __device__ T atomicExch(T *address, T value);
template <typename T> __device__ T atomicMin(T *address, T value);
template <typename T> __device__ T atomicMax(T *address, T value);
template <typename T> __device__ T atomicCAS(T *address, T compare, T value);
template <typename T> __device__ T __ldg(const T *address);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __fdividef(float, float);
__device__ float rsqrtf(float);

#else /* C, C++ and Objective-C++: the CUDA keywords of shared headers vanish */

#define __global__
#define __device__
#define __host__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __align__(n)
#define __grid_constant__

#endif /* __CUDA__ */

#endif /* MPSAUDIT_CUDA_SHIM_H */
