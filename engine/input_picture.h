// A picture as an input hands it over (engine/media/video_input.h): where its luma lies (host
// memory, or a GPU's memory where a video engine decoded it, docs/adr/0083), its chroma planes
// where a metric reads them (in host memory, or beside a device luma in the same GPU's memory as
// the engine interleaved them), its geometry as the bytes lie, and the
// upscale still to do before it is scored, if any, its chroma's included (docs/adr/0080). Whoever
// reads it learns all of that from the picture itself, per picture: a rendition whose plan did not
// fit one picture hands that one over already scaled, with no upscale pending.
#ifndef SSIMD_ENGINE_INPUT_PICTURE_H_
#define SSIMD_ENGINE_INPUT_PICTURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "engine/device_plane.h"
#include "engine/luma_scale_plan.h"
#include "engine/picture.h"
#include "engine/plane_pieces.h"

namespace ssimd {

class Picture {
 public:
  // No picture yet: nothing to read (a reader fills it, VideoInput::Read).
  Picture() = default;

  // Tightly packed luma in host memory (LumaBytes of `geometry`).
  static Picture OnHost(std::string luma, const Geometry& geometry,
                        std::shared_ptr<const LumaScalePlan> upscale = nullptr);
  // Luma in a GPU's memory; `geometry` is the plane's size and depth (the plane's layout says the
  // same) with the stream's chroma layout.
  static Picture OnDevice(std::shared_ptr<const DevicePlane> luma, const Geometry& geometry,
                          std::shared_ptr<const LumaScalePlan> upscale = nullptr);

  // For readers: the picture becomes a host one of `geometry`, and the returned buffer (the one
  // it held before, a recycled one's size and contents as they were) is where its luma goes.
  std::string* ResetOnHost(const Geometry& geometry,
                           std::shared_ptr<const LumaScalePlan> upscale = nullptr);
  // The same, `with_chroma` or not: the buffer takes its luma, then with chroma its Cb and Cr
  // planes at StoredChromaSize (FrameBytes of `geometry` in all, the raw .yuv layout). With chroma,
  // an `upscale` must carry a chroma plan (LumaScalePlan::chroma).
  std::string* ResetOnHostPlanes(const Geometry& geometry, bool with_chroma,
                                 std::shared_ptr<const LumaScalePlan> upscale = nullptr);
  // For readers: the picture becomes a device one; the host buffer is kept for a later reuse.
  void ResetOnDevice(std::shared_ptr<const DevicePlane> luma, const Geometry& geometry,
                     std::shared_ptr<const LumaScalePlan> upscale = nullptr);
  // A device picture whose chroma planes lie on the host: the returned buffer (the host one)
  // is where they go, Cb then Cr at StoredChromaSize.
  std::string* ResetOnDeviceWithHostChroma(std::shared_ptr<const DevicePlane> luma,
                                           const Geometry& geometry,
                                           std::shared_ptr<const LumaScalePlan> upscale = nullptr);
  // A device picture whose chroma lies on the device too: `chroma`, Cb and Cr interleaved (a
  // plane of StoredChromaSize with DevicePlaneLayout::interleaved_planes 2).
  void ResetOnDeviceWithChroma(std::shared_ptr<const DevicePlane> luma,
                               std::shared_ptr<const DevicePlane> chroma, const Geometry& geometry,
                               std::shared_ptr<const LumaScalePlan> upscale = nullptr);

  // Gives the picture a host buffer to be read into (a recycled one, LumaBufferPool).
  void AdoptBuffer(std::string buffer) { host_ = std::move(buffer); }
  // The host buffer, for recycling or for a caller that keeps the bytes (a host picture's luma,
  // then its chroma where it has some); the picture is empty afterwards (a device picture gives
  // its spare, or its chroma).
  std::string TakeBuffer();

  bool empty() const { return where_ == Where::kNone; }
  bool on_device() const { return where_ == Where::kDevice; }
  // The GPU that holds the luma, as the GPU backend counts them; none for a host picture.
  std::optional<int> device() const;

  // The size and bit depth as the bytes lie: before any pending upscale.
  const Geometry& geometry() const { return geometry_; }
  int bit_depth() const { return geometry_.bit_depth; }
  // The geometry it is scored at: after the pending upscale, else geometry().
  Geometry scored_geometry() const;

  // The upscale the scorer still has to do (the plan reads geometry()'s size), or null.
  const LumaScalePlan* upscale() const { return upscale_.get(); }
  bool needs_upscale() const { return upscale_ != nullptr; }

  // The luma bytes of a host picture; empty for a device picture (and for no picture).
  absl::Span<const uint8_t> host_luma() const;
  // Whether the picture carries its chroma planes (its reader was asked to keep them).
  bool has_chroma() const { return with_chroma_; }
  // Its Cb then Cr plane in host memory, each at StoredChromaSize(geometry()); empty without, and
  // for chroma on the device.
  absl::Span<const uint8_t> host_chroma() const;
  // The interleaved chroma of a device picture that keeps it there; null otherwise.
  const DevicePlane* device_chroma() const { return device_chroma_.get(); }
  // The luma plane of a device picture; null otherwise.
  const DevicePlane* device_luma() const { return on_device() ? device_.get() : nullptr; }
  // The luma as a backend takes it (Scorer::ScorePieces): host bytes, or the device plane, which
  // the GPU backend reads where it lies. A view: the picture must outlive it.
  PlanePieces LumaPieces() const;

  // A device picture's luma, and chroma on the device, copied into host memory (into the buffer
  // the picture kept); the picture is a host one afterwards. Nothing to do for a host picture.
  absl::Status BringToHost();
  // The pending upscale done here with the host model (engine/luma_scale_host.h, the arithmetic
  // the GPU kernels run), for readers that want the scored size, chroma and all; the picture must
  // be on the host. Nothing to do without one.
  absl::Status UpscaleOnHost();

 private:
  enum class Where { kNone, kHost, kDevice };

  Where where_ = Where::kNone;
  Geometry geometry_;
  // Host bytes: a host picture's luma followed by its chroma (with_chroma_); a device picture's
  // chroma (with_chroma_), or else a spare buffer. The luma of a device picture is device_.
  std::string host_;
  std::shared_ptr<const DevicePlane> device_;
  std::shared_ptr<const DevicePlane> device_chroma_;  // a device picture's chroma kept there
  bool with_chroma_ = false;
  std::shared_ptr<const LumaScalePlan> upscale_;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_INPUT_PICTURE_H_
