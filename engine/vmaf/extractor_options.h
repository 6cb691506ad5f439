// The options of libvmaf's integer adm, vif and motion extractors that change their values, as
// plain values with libvmaf's defaults. A model's feature dictionaries set them; they are parsed
// and range-checked once, when the model is read (engine/vmaf/model.h), and every backend reads
// the result. The checks that depend on an extractor's arithmetic (adm's viewing set-up) are the
// extractor's own (engine/cpu/vmaf/*.h: Validate*Options).
#ifndef SSIMD_ENGINE_VMAF_EXTRACTOR_OPTIONS_H_
#define SSIMD_ENGINE_VMAF_EXTRACTOR_OPTIONS_H_

namespace ssimd {

// Every option of libvmaf's integer adm that changes its values, under libvmaf's names, with its
// defaults; the comments give the ranges libvmaf accepts.
struct AdmOptions {
  double adm_enhn_gain_limit = 100.0;  // [1, 100]; the `neg` models use 1
  double adm_norm_view_dist = 3.0;     // [0.75, 24]
  int adm_ref_display_height = 1080;   // [1, 4320]
  // libvmaf refuses to score when adm_norm_view_dist * adm_ref_display_height < 3 * 1080.
  int adm_csf_mode = 0;            // [0, 3]: Watson 97, Barten, blend, blend (MAE fit)
  double adm_csf_scale = 1.0;      // [0, 50]; Barten (mode 1) only
  double adm_csf_diag_scale = 1.0;  // [0, 50]; Barten (mode 1) only
  double adm_noise_weight = 0.03125;  // [0, 1500]
  double adm_dlm_weight = 0.5;        // [0, 1]; adm3 only
  double adm_min_val = 0.0;           // [0, 1]; adm3's floor
  bool adm_skip_aim = false;          // aim 0, as libvmaf reports it then
  bool adm_skip_scale0 = false;       // scale 0 reports 0 and counts 1e-10 in adm2's denominator
};

// The options of libvmaf's integer vif that change values (its `debug` only adds outputs), with
// its defaults. NaN is refused here (libvmaf's range check lets it through).
struct VifOptions {
  // vif_enhn_gain_limit (egl), 1..100 inclusive: cap of the gain a distortion may show over the
  // reference; 1 disables enhancement (libvmaf's `neg` models), 100 is the default.
  double enhn_gain_limit = 100.0;
  // vif_skip_scale0 (ssclz): scale 0 is not computed and reported as 0; scales 1..3 are unchanged.
  bool skip_scale0 = false;
};

// The options of libvmaf's integer motion that change values, with its defaults. Ranges are
// inclusive, as libvmaf checks them; NaN is refused here (libvmaf's check lets it through).
struct MotionOptions {
  // motion_force_zero (force_0): every score is 0 and no picture is read.
  bool force_zero = false;
  // motion_fps_weight (mfw), 0..5: multiplies each SAD score before the cap.
  double fps_weight = 1.0;
  // motion_max_val (mmxv), 0..10000: cap of the SAD score and of motion3.
  double max_val = 10000.0;
  // motion_blend_factor (mbf), 0..1, and motion_blend_offset (mbo), 0..1000: motion3 blends
  // motion2 with min(motion2, offset); a factor of 1 leaves it unchanged.
  double blend_factor = 1.0;
  double blend_offset = 40.0;
  // motion_five_frame_window (mffw): a frame is compared with the reference two frames back
  // (MotionPreviousDistance), and motion2 takes its neighbours' minimum.
  bool five_frame_window = false;
  // motion_moving_average (mma): motion3 averages a frame's blended score with the previous one.
  bool moving_average = false;
};

// What one model asks of each extractor.
struct VmafExtractorOptions {
  AdmOptions adm;
  VifOptions vif;
  MotionOptions motion;
};

}  // namespace ssimd

#endif  // SSIMD_ENGINE_VMAF_EXTRACTOR_OPTIONS_H_
