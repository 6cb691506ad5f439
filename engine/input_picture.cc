#include "engine/input_picture.h"

#include <algorithm>
#include <utility>

#include "base/status_macros.h"
#include "engine/luma_scale_host.h"

namespace ssimd {
namespace {

absl::Span<const uint8_t> BytesOf(const std::string& buffer) {
  return absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(buffer.data()), buffer.size());
}

}  // namespace

Picture Picture::OnHost(std::string luma, const Geometry& geometry,
                        std::shared_ptr<const LumaScalePlan> upscale) {
  Picture picture;
  picture.AdoptBuffer(std::move(luma));
  picture.ResetOnHost(geometry, std::move(upscale));
  return picture;
}

Picture Picture::OnDevice(std::shared_ptr<const DevicePlane> luma, const Geometry& geometry,
                          std::shared_ptr<const LumaScalePlan> upscale) {
  Picture picture;
  picture.ResetOnDevice(std::move(luma), geometry, std::move(upscale));
  return picture;
}

std::string* Picture::ResetOnHost(const Geometry& geometry,
                                  std::shared_ptr<const LumaScalePlan> upscale) {
  where_ = Where::kHost;
  geometry_ = geometry;
  device_.reset();
  device_chroma_.reset();
  with_chroma_ = false;
  upscale_ = std::move(upscale);
  return &host_;
}

std::string* Picture::ResetOnHostPlanes(const Geometry& geometry, bool with_chroma,
                                        std::shared_ptr<const LumaScalePlan> upscale) {
  std::string* buffer = ResetOnHost(geometry, std::move(upscale));
  with_chroma_ = with_chroma && geometry.chroma != ChromaFormat::k400;
  return buffer;
}

std::string* Picture::ResetOnDeviceWithHostChroma(std::shared_ptr<const DevicePlane> luma,
                                                  const Geometry& geometry,
                                                  std::shared_ptr<const LumaScalePlan> upscale) {
  ResetOnDevice(std::move(luma), geometry, std::move(upscale));
  with_chroma_ = geometry.chroma != ChromaFormat::k400;
  return &host_;
}

void Picture::ResetOnDeviceWithChroma(std::shared_ptr<const DevicePlane> luma,
                                      std::shared_ptr<const DevicePlane> chroma,
                                      const Geometry& geometry,
                                      std::shared_ptr<const LumaScalePlan> upscale) {
  ResetOnDevice(std::move(luma), geometry, std::move(upscale));
  with_chroma_ = geometry.chroma != ChromaFormat::k400 && chroma != nullptr;
  if (with_chroma_) device_chroma_ = std::move(chroma);
}

void Picture::ResetOnDevice(std::shared_ptr<const DevicePlane> luma, const Geometry& geometry,
                            std::shared_ptr<const LumaScalePlan> upscale) {
  where_ = Where::kDevice;
  geometry_ = geometry;
  device_ = std::move(luma);
  device_chroma_.reset();
  with_chroma_ = false;
  upscale_ = std::move(upscale);
}

std::string Picture::TakeBuffer() {
  std::string buffer = std::move(host_);
  host_.clear();  // a moved-from string is valid but unspecified
  where_ = Where::kNone;
  geometry_ = Geometry();
  device_.reset();
  device_chroma_.reset();
  with_chroma_ = false;
  upscale_.reset();
  return buffer;
}

std::optional<int> Picture::device() const {
  if (!on_device()) return std::nullopt;
  return device_->layout().device;
}

Geometry Picture::scored_geometry() const {
  if (upscale_ == nullptr) return geometry_;
  Geometry scored = geometry_;
  scored.width = upscale_->dst_width;
  scored.height = upscale_->dst_height;
  return scored;
}

absl::Span<const uint8_t> Picture::host_luma() const {
  if (where_ != Where::kHost) return {};
  const absl::Span<const uint8_t> bytes = BytesOf(host_);
  return with_chroma_ ? bytes.first(std::min(bytes.size(), LumaBytes(geometry_))) : bytes;
}

absl::Span<const uint8_t> Picture::host_chroma() const {
  if (!with_chroma_ || device_chroma_ != nullptr) return {};
  const absl::Span<const uint8_t> bytes = BytesOf(host_);
  return on_device() ? bytes : bytes.subspan(std::min(bytes.size(), LumaBytes(geometry_)));
}

PlanePieces Picture::LumaPieces() const {
  if (on_device()) return PlanePieces(*device_);
  return PlanePieces(host_luma());
}

absl::Status Picture::BringToHost() {
  if (!on_device()) return absl::OkStatus();
  const size_t luma_bytes = device_->packed_bytes();
  const bool host_chroma = with_chroma_ && device_chroma_ == nullptr;
  if (host_chroma) {
    // The luma goes before the chroma the picture holds on the host already.
    host_.insert(0, luma_bytes, '\0');
  } else {
    // The spare buffer, for the luma and any chroma on the device.
    host_.resize(luma_bytes + (device_chroma_ != nullptr ? device_chroma_->packed_bytes() : 0));
  }
  uint8_t* bytes = reinterpret_cast<uint8_t*>(host_.data());
  absl::Status copied = device_->CopyToHost(bytes);
  if (copied.ok() && device_chroma_ != nullptr) {
    copied = device_chroma_->CopyToHost(bytes + luma_bytes);
  }
  if (!copied.ok()) {
    if (host_chroma) host_.erase(0, luma_bytes);  // still a device picture with its chroma
    return copied;
  }
  device_.reset();
  device_chroma_.reset();
  where_ = Where::kHost;
  return absl::OkStatus();
}

absl::Status Picture::UpscaleOnHost() {
  if (upscale_ == nullptr) return absl::OkStatus();
  if (where_ != Where::kHost) {
    return absl::FailedPreconditionError("a picture is upscaled on the host only from host bytes");
  }
  std::string scaled;
  SSIMD_RETURN_IF_ERROR(ScalePackedPictureOnHost(*upscale_, geometry_, with_chroma_,
                                                 BytesOf(host_), scaled));
  host_ = std::move(scaled);
  geometry_ = scored_geometry();
  upscale_.reset();
  return absl::OkStatus();
}

}  // namespace ssimd
