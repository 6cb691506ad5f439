// The CPU float_ms_ssim against a literal, single-threaded reading of libvmaf's steps (whole
// planes, one pass after another), at several sizes, bit depths and thread counts; its size rule,
// its errors, and the options (enable_db, clip_db, enable_lcs) against libvmaf's formulas.
#include "engine/cpu/ms_ssim.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "base/double_bits.h"
#include "base/thread_pool.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- A literal model of libvmaf's float_ms_ssim, written from docs/numerics-ms-ssim.md. ----

const float kGauss[11] = {0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
                          0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};
const float kLowPass[5][5] = {
    {0.363505f, 0.160885f, -0.047149f, -0.010146f, 0.016114f},
    {0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f},
    {-0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f},
    {-0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f},
    {0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f},
};
const float kBeta[5] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

struct Img {
  int w = 0, h = 0;
  std::vector<float> v;
  float at(int x, int y) const { return v[static_cast<size_t>(y) * w + x]; }
};

Img Decimate(const Img& in) {
  Img out{in.w / 2 + (in.w & 1), in.h / 2 + (in.h & 1), {}};
  out.v.resize(static_cast<size_t>(out.w) * out.h);
  auto mirror = [](int i, int n) { return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i); };
  for (int y = 0; y < out.h; ++y) {
    for (int x = 0; x < out.w; ++x) {
      double sum = 0.0;
      for (int v = -4; v <= 4; ++v) {
        for (int u = -4; u <= 4; ++u) {
          const float p = in.at(mirror(2 * x + u, in.w), mirror(2 * y + v, in.h)) *
                          kLowPass[std::abs(v)][std::abs(u)];
          sum += p;
        }
      }
      out.v[static_cast<size_t>(y) * out.w + x] = static_cast<float>(sum);
    }
  }
  return out;
}

// Valid-region separable Gaussian: rows first (all rows), then columns.
Img Convolve(const Img& in) {
  Img rows{in.w - 10, in.h, {}};
  rows.v.resize(static_cast<size_t>(rows.w) * rows.h);
  for (int y = 0; y < in.h; ++y) {
    for (int x = 0; x < rows.w; ++x) {
      double sum = 0.0;
      for (int t = 0; t < 11; ++t) sum += in.at(x + t, y) * kGauss[t];
      rows.v[static_cast<size_t>(y) * rows.w + x] = static_cast<float>(sum);
    }
  }
  Img out{rows.w, in.h - 10, {}};
  out.v.resize(static_cast<size_t>(out.w) * out.h);
  for (int y = 0; y < out.h; ++y) {
    for (int x = 0; x < out.w; ++x) {
      double sum = 0.0;
      for (int t = 0; t < 11; ++t) sum += rows.at(x, y + t) * kGauss[t];
      out.v[static_cast<size_t>(y) * out.w + x] = static_cast<float>(sum);
    }
  }
  return out;
}

Img Product(const Img& a, const Img& b) {
  Img out = a;
  for (size_t i = 0; i < out.v.size(); ++i) out.v[i] = a.v[i] * b.v[i];
  return out;
}

void ModelScale(const Img& r, const Img& d, float* l, float* c, float* s) {
  const Img mr = Convolve(r), md = Convolve(d);
  Img vr = Convolve(Product(r, r)), vd = Convolve(Product(d, d)), cov = Convolve(Product(r, d));
  const float c1 = (0.01f * 255) * (0.01f * 255);
  const float c2 = (0.03f * 255) * (0.03f * 255);
  const float c3 = c2 / 2.0f;
  double ls = 0, cs = 0, ss = 0;
  for (size_t i = 0; i < mr.v.size(); ++i) {
    vr.v[i] -= mr.v[i] * mr.v[i];
    vd.v[i] -= md.v[i] * md.v[i];
    vr.v[i] = 0.0 > vr.v[i] ? 0.0f : vr.v[i];
    vd.v[i] = 0.0 > vd.v[i] ? 0.0f : vd.v[i];
    cov.v[i] -= mr.v[i] * md.v[i];
    const float root = std::sqrt(vr.v[i] * vd.v[i]);
    const double lt = (2.0 * mr.v[i] * md.v[i] + c1) / (mr.v[i] * mr.v[i] + md.v[i] * md.v[i] + c1);
    const double ct = (2.0 * root + c2) / (vr.v[i] + vd.v[i] + c2);
    const float cv = (cov.v[i] < 0.0f && root <= 0.0f) ? 0.0f : cov.v[i];
    const double st = (cv + c3) / (root + c3);
    ls += lt;
    cs += ct;
    ss += st;
  }
  const double n = static_cast<double>(mr.w * mr.h);
  *l = static_cast<float>(ls / n);
  *c = static_cast<float>(cs / n);
  *s = static_cast<float>(ss / n);
}

FloatMsSsimValues Model(const LumaView& ref, const LumaView& dist) {
  Img r[5], d[5];
  const float divisor = static_cast<float>(1 << (ref.bit_depth - 8));
  for (Img* img : {&r[0], &d[0]}) {
    const LumaView& view = img == &r[0] ? ref : dist;
    img->w = view.width;
    img->h = view.height;
    for (int y = 0; y < view.height; ++y) {
      for (int x = 0; x < view.width; ++x) {
        img->v.push_back(static_cast<float>(view.Sample(x, y)) / divisor);
      }
    }
  }
  for (int i = 1; i < 5; ++i) {
    r[i] = Decimate(r[i - 1]);
    d[i] = Decimate(d[i - 1]);
  }
  FloatMsSsimValues out;
  double score = 1.0;
  for (int i = 0; i < 5; ++i) {
    float l, c, s;
    ModelScale(r[i], d[i], &l, &c, &s);
    volatile double alpha = i == 4 ? 0.1333f : 0.0f;  // pow at run time, as libvmaf calls it
    score *= std::pow(static_cast<double>(l), alpha) * std::pow(static_cast<double>(c), kBeta[i]) *
             std::pow(static_cast<double>(s), kBeta[i]);
    out.l[i] = l;
    out.c[i] = c;
    out.s[i] = s;
  }
  out.ms_ssim = score;
  return out;
}

// ---- Test pictures. ----

struct Picture {
  std::vector<uint8_t> bytes;
  LumaView view;
};

// A smooth pattern plus noise, so that every scale has structure; `distort` adds more noise.
Picture MakePicture(int w, int h, int bit_depth, uint32_t seed, int distort, int pad_bytes = 0) {
  Picture p;
  const int bytes_per_sample = bit_depth > 8 ? 2 : 1;
  const size_t stride = static_cast<size_t>(w) * bytes_per_sample + pad_bytes;
  p.bytes.assign(stride * h, 0xab);
  std::mt19937 rng(seed);
  std::mt19937 noise(seed + 1000);
  std::uniform_int_distribution<int> grain(-6, 6), extra(-distort, distort);
  const uint32_t peak = (1u << bit_depth) - 1u;
  const double unit = static_cast<double>(peak) / 255.0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      double v = 128 + 60 * std::sin(x * 0.07) * std::cos(y * 0.05) + 30 * std::sin((x + y) * 0.3);
      v += grain(rng);
      if (distort > 0) v += extra(noise);
      const double scaled = std::clamp(v * unit, 0.0, static_cast<double>(peak));
      StoreSample(p.bytes.data() + y * stride, x, bit_depth, static_cast<uint32_t>(scaled));
    }
  }
  p.view = LumaView{p.bytes.data(), stride, w, h, bit_depth};
  return p;
}

void ExpectSameValues(const FloatMsSsimValues& want, const FloatMsSsimValues& got) {
  EXPECT_TRUE(SameBits(want.ms_ssim, got.ms_ssim)) << want.ms_ssim << " vs " << got.ms_ssim;
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(SameBits(want.l[i], got.l[i])) << "l" << i;
    EXPECT_TRUE(SameBits(want.c[i], got.c[i])) << "c" << i;
    EXPECT_TRUE(SameBits(want.s[i], got.s[i])) << "s" << i;
  }
}

TEST(ComputeFloatMsSsim, MatchesTheLiteralModelBitForBit) {
  struct Case {
    int w, h, bits, pad;
  };
  for (const Case& k : {Case{176, 176, 8, 0}, Case{201, 187, 8, 3}, Case{240, 181, 10, 2},
                        Case{183, 190, 12, 0}, Case{190, 177, 16, 6}}) {
    const Picture ref = MakePicture(k.w, k.h, k.bits, 1, 0, k.pad);
    const Picture dist = MakePicture(k.w, k.h, k.bits, 1, 9, k.pad);
    const FloatMsSsimValues want = Model(ref.view, dist.view);
    EXPECT_GT(want.ms_ssim, 0.5);
    EXPECT_LT(want.ms_ssim, 1.0);
    for (int threads : {1, 3}) {
      ThreadPool pool(threads, ThreadPool::Sizing::kWithCaller);
      auto got = ComputeFloatMsSsim(ref.view, dist.view, pool);
      ASSERT_TRUE(got.ok()) << got.status();
      SCOPED_TRACE(testing::Message()
                   << k.w << "x" << k.h << " " << k.bits << "-bit, " << threads << " threads");
      ExpectSameValues(want, *got);
    }
  }
}

TEST(ComputeFloatMsSsim, ManyBandsAndThreadsGiveTheSameBits) {
  // Tall enough for several bands at scale 0 (at most 2^18 / 326 = 804 rows a band).
  const Picture ref = MakePicture(336, 1800, 8, 5, 0);
  const Picture dist = MakePicture(336, 1800, 8, 5, 20);
  ThreadPool one(1, ThreadPool::Sizing::kWithCaller);
  ThreadPool four(4, ThreadPool::Sizing::kWithCaller);
  auto a = ComputeFloatMsSsim(ref.view, dist.view, one);
  auto b = ComputeFloatMsSsim(ref.view, dist.view, four);
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectSameValues(*a, *b);
  ExpectSameValues(Model(ref.view, dist.view), *a);
}

TEST(ComputeFloatMsSsim, IdenticalTexturedPicturesScoreOne) {
  const Picture ref = MakePicture(200, 180, 8, 3, 0);
  ThreadPool pool(2, ThreadPool::Sizing::kWithCaller);
  auto got = ComputeFloatMsSsim(ref.view, ref.view, pool);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->ms_ssim, 1.0);
}

TEST(CheckFloatMsSsimSize, RefusesBelowFiveScalesAndSaysTheLeastSize) {
  EXPECT_TRUE(CheckFloatMsSsimSize(176, 176).ok());
  EXPECT_TRUE(CheckFloatMsSsimSize(1920, 1080).ok());
  for (const auto& [w, h] :
       {std::pair{175, 176}, std::pair{176, 175}, std::pair{64, 64}, std::pair{1, 1}}) {
    const absl::Status status = CheckFloatMsSsimSize(w, h);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(status.message().find("176x176"), absl::string_view::npos) << status;
  }
}

TEST(ComputeFloatMsSsim, RefusesBadViews) {
  ThreadPool pool(1, ThreadPool::Sizing::kWithCaller);
  const Picture a = MakePicture(176, 176, 8, 1, 0);
  const Picture small = MakePicture(64, 64, 8, 1, 0);
  const Picture deep = MakePicture(176, 176, 10, 1, 0);
  EXPECT_EQ(ComputeFloatMsSsim(small.view, small.view, pool).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeFloatMsSsim(a.view, deep.view, pool).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeFloatMsSsim(a.view, small.view, pool).status().code(),
            absl::StatusCode::kInvalidArgument);
  LumaView empty = a.view;
  empty.data = nullptr;
  EXPECT_EQ(ComputeFloatMsSsim(a.view, empty, pool).status().code(),
            absl::StatusCode::kInvalidArgument);
  LumaView odd_depth = a.view;
  odd_depth.bit_depth = 9;
  EXPECT_EQ(ComputeFloatMsSsim(odd_depth, odd_depth, pool).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ---- Options. ----

// log10 at run time, as libvmaf computes it (a folded constant may differ in the last bit).
double Log10(double x) {
  volatile double v = x;
  return std::log10(v);
}

FloatMsSsimValues SomeValues(double score) {
  FloatMsSsimValues v;
  v.ms_ssim = score;
  for (int i = 0; i < 5; ++i) {
    v.l[i] = 0.9 + i * 0.01;
    v.c[i] = 0.8 + i * 0.01;
    v.s[i] = 0.7 + i * 0.01;
  }
  return v;
}

// The names a request's frames carry, as engine/features.h lists them for float_ms_ssim.
std::vector<std::string> NamesOf(const FloatMsSsimOptions& options) {
  FeatureSet features;
  features.float_ms_ssim = options;
  return MetricNames(features);
}

TEST(FloatMsSsimMetricNames, LibvmafsKeysInItsOrder) {
  EXPECT_EQ(NamesOf({}), std::vector<std::string>{"float_ms_ssim"});
  FloatMsSsimOptions lcs;
  lcs.enable_lcs = true;
  const std::vector<std::string> names = NamesOf(lcs);
  ASSERT_EQ(names.size(), 16u);
  EXPECT_EQ(names[0], "float_ms_ssim");
  EXPECT_EQ(names[1], "float_ms_ssim_l_scale0");
  EXPECT_EQ(names[5], "float_ms_ssim_l_scale4");
  EXPECT_EQ(names[6], "float_ms_ssim_c_scale0");
  EXPECT_EQ(names[11], "float_ms_ssim_s_scale0");
  EXPECT_EQ(names[15], "float_ms_ssim_s_scale4");
}

TEST(AddFloatMsSsimScores, PlainScoreAndLcsKeys) {
  const Geometry g{1920, 1080, 8, ChromaFormat::k420};
  const FloatMsSsimValues v = SomeValues(0.987654321);
  FloatMsSsimOptions options;
  FrameScores plain;
  AddFloatMsSsimScores(options, g, v, plain);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain.at("float_ms_ssim"), 0.987654321);
  // clip_db alone changes nothing: libvmaf applies the cap only to dB values.
  options.clip_db = true;
  FrameScores clipped_only;
  AddFloatMsSsimScores(options, g, v, clipped_only);
  EXPECT_EQ(clipped_only, plain);

  options = FloatMsSsimOptions{};
  options.enable_lcs = true;
  options.enable_db = true;
  FrameScores lcs;
  AddFloatMsSsimScores(options, g, v, lcs);
  ASSERT_EQ(lcs.size(), NamesOf(options).size());
  for (const std::string& name : NamesOf(options)) EXPECT_EQ(lcs.count(name), 1u);
  for (int i = 0; i < 5; ++i) {  // never in dB
    EXPECT_EQ(lcs.at("float_ms_ssim_l_scale" + std::to_string(i)), v.l[i]);
    EXPECT_EQ(lcs.at("float_ms_ssim_c_scale" + std::to_string(i)), v.c[i]);
    EXPECT_EQ(lcs.at("float_ms_ssim_s_scale" + std::to_string(i)), v.s[i]);
  }
}

TEST(AddFloatMsSsimScores, DecibelsAndTheirCap) {
  FloatMsSsimOptions db;
  db.enable_db = true;
  FloatMsSsimOptions clip = db;
  clip.clip_db = true;
  const double score = 0.9934567890123;
  for (const Geometry& g :
       {Geometry{1920, 1080, 8, ChromaFormat::k420}, Geometry{1280, 720, 10, ChromaFormat::k420},
        Geometry{3840, 2160, 16, ChromaFormat::k400}}) {
    FrameScores out;
    AddFloatMsSsimScores(db, g, SomeValues(score), out);
    EXPECT_TRUE(SameBits(out.at("float_ms_ssim"), -10.0 * Log10(1.0 - score)));
    // The cap: ceil(10 log10(peak^2 / (0.5 / (w*h)))), peak = 2^bits - 1, full-resolution size.
    const double peak = static_cast<double>((1u << g.bit_depth) - 1u);
    const double cap =
        std::ceil(10.0 * Log10(peak * peak / (0.5 / (static_cast<double>(g.width) * g.height))));
    out.clear();
    AddFloatMsSsimScores(clip, g, SomeValues(score), out);
    EXPECT_TRUE(SameBits(out.at("float_ms_ssim"), -10.0 * Log10(1.0 - score)));  // below the cap
    out.clear();
    AddFloatMsSsimScores(clip, g, SomeValues(1.0), out);
    EXPECT_EQ(out.at("float_ms_ssim"), cap);
    out.clear();
    AddFloatMsSsimScores(db, g, SomeValues(1.0), out);
    EXPECT_EQ(out.at("float_ms_ssim"), kInf);  // identical pictures without the cap
  }
  FrameScores out;
  AddFloatMsSsimScores(clip, Geometry{1920, 1080, 8, ChromaFormat::k420}, SomeValues(1.0), out);
  EXPECT_EQ(out.at("float_ms_ssim"), 115.0);
  out.clear();
  AddFloatMsSsimScores(clip, Geometry{1280, 720, 10, ChromaFormat::k420}, SomeValues(1.0), out);
  EXPECT_EQ(out.at("float_ms_ssim"), 123.0);
}

}  // namespace
}  // namespace ssimd
