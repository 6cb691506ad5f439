// Staging of a frame's luma for upload: packed rows in a (pinned) host buffer, with the sample
// range check the exact decimation relies on. Device-free, so it is tested without a GPU.
#ifndef SSIMD_ENGINE_GPU_STAGING_H_
#define SSIMD_ENGINE_GPU_STAGING_H_

#include <cstdint>

#include "absl/status/status.h"
#include "engine/picture.h"
#include "engine/plane_pieces.h"

namespace ssimd {

// Copies `view` into `staging` as packed rows (LumaBytes of its geometry). Above 8 bits it also
// checks that no sample exceeds the bit depth's peak, as the CPU engine does, and returns the same
// INVALID_ARGUMENT naming the first such sample; `what` names the plane ("reference").
absl::Status StageLumaPlane(const LumaView& view, uint8_t* staging, const char* what);

// Copies `view` into `staging` as packed rows, with no sample check (what StageLumaPlane does at
// 8 bits, and psnr's chroma at any depth: the CPU's psnr does not check chroma samples).
void CopyPackedRows(const LumaView& view, uint8_t* staging);

// The same for a packed plane in pieces: INVALID_ARGUMENT (as MakeLumaView's) when the pieces do
// not hold exactly LumaBytes(geometry) bytes, then the copy and the range check.
absl::Status StageLumaPieces(const Geometry& geometry, const PlanePieces& plane, uint8_t* staging,
                             const char* what);

}  // namespace ssimd

#endif  // SSIMD_ENGINE_GPU_STAGING_H_
