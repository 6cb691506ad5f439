// Device-only helper for .hip files: groups of 32 lanes that exchange registers by shuffles. A
// group is one warp on NVIDIA and half a wavefront on AMD's wave64 parts (a whole one on wave32),
// so code written for groups runs unchanged on both. Every lane of a group must call the shuffles
// together (CUDA's full mask): branch around them only on values that are the same across a group.
#ifndef SSIMD_KERNELS_LANE_GROUP_H_
#define SSIMD_KERNELS_LANE_GROUP_H_

#include "kernels/hip_portability.h"

namespace ssimd {

inline constexpr int kLaneGroupWidth = 32;

__device__ inline int LaneInGroup() { return static_cast<int>(threadIdx.x) % kLaneGroupWidth; }
__device__ inline int GroupInBlock() { return static_cast<int>(threadIdx.x) / kLaneGroupWidth; }

// The value of lane (this lane + delta) of the group; a lane past the group's end gets its own.
template <typename T>
__device__ inline T ShuffleDownInGroup(T value, int delta) {
#if defined(__HIPCC__)
  return __shfl_down(value, static_cast<unsigned int>(delta), kLaneGroupWidth);
#else
  return __shfl_down_sync(0xffffffffu, value, static_cast<unsigned int>(delta), kLaneGroupWidth);
#endif
}

// The value of lane (this lane - delta) of the group; a lane before the group's start gets its own.
template <typename T>
__device__ inline T ShuffleUpInGroup(T value, int delta) {
#if defined(__HIPCC__)
  return __shfl_up(value, static_cast<unsigned int>(delta), kLaneGroupWidth);
#else
  return __shfl_up_sync(0xffffffffu, value, static_cast<unsigned int>(delta), kLaneGroupWidth);
#endif
}

// The value of lane `source` (0 <= source < kLaneGroupWidth) of the group, in every lane.
template <typename T>
__device__ inline T ValueOfLane(T value, int source) {
#if defined(__HIPCC__)
  return __shfl(value, source, kLaneGroupWidth);
#else
  return __shfl_sync(0xffffffffu, value, source, kLaneGroupWidth);
#endif
}

// Whether `predicate` holds in every lane of the group. On AMD's wave64 the answer covers the
// whole wavefront: stricter, and the same for both of its groups, so branches on it stay uniform.
__device__ inline bool AllInGroup(bool predicate) {
#if defined(__HIPCC__)
  return __all(predicate);
#else
  return __all_sync(0xffffffffu, predicate);
#endif
}

}  // namespace ssimd

#endif  // SSIMD_KERNELS_LANE_GROUP_H_
