// Holds kernels/decimate.h (the exact int64 window sum the GPU runs) and the CPU engine's
// decimated planes against libvmaf's iqa_decimate() arithmetic written out literally: binary32
// products accumulated in binary64 in (v, u) order, one final binary32 rounding
// (docs/numerics.md §4).
#include "kernels/decimate.h"

#include <cstring>
#include <random>
#include <vector>

#include "base/thread_pool.h"
#include "engine/cpu/float_ssim.h"
#include "engine/cpu/sample_plane.h"
#include "gtest/gtest.h"

namespace ssimd {
namespace {

// KBND_SYMMETRIC: upstream's single reflection where it is defined, else the fork's periodic form.
int Reflect(int i, int n) {
  if (i >= -n && i < 2 * n) return i < 0 ? -1 - i : (i >= n ? 2 * n - 1 - i : i);
  const int m = ((i % (2 * n)) + 2 * n) % (2 * n);
  return m < n ? m : 2 * n - 1 - m;
}

// libvmaf's decimation of one plane, as docs/numerics.md §4 describes it. `samples` are raw
// integers.
std::vector<float> LiteralDecimate(const std::vector<uint16_t>& samples, int w, int h, int bd,
                                   int f, int* out_w, int* out_h) {
  const float divisor = static_cast<float>(1 << (bd - 8));
  std::vector<float> plane(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) plane[i] = static_cast<float>(samples[i]) / divisor;
  if (f <= 1) {
    *out_w = w;
    *out_h = h;
    return plane;
  }
  const float t = 1.0f / static_cast<float>(f * f);
  *out_w = w / f + (w & 1);
  *out_h = h / f + (h & 1);
  std::vector<float> out(static_cast<size_t>(*out_w) * *out_h);
  for (int y = 0; y < *out_h; ++y) {
    for (int x = 0; x < *out_w; ++x) {
      double sum = 0.0;
      for (int v = -(f / 2); v <= f - 1 - f / 2; ++v) {
        for (int u = -(f / 2); u <= f - 1 - f / 2; ++u) {
          const float s = plane[static_cast<size_t>(Reflect(y * f + v, h)) * w +
                                Reflect(x * f + u, w)];
          const float product = s * t;
          sum += static_cast<double>(product);
        }
      }
      out[static_cast<size_t>(y) * *out_w + x] = static_cast<float>(sum * 1.0f);
    }
  }
  return out;
}

std::vector<uint16_t> Content(int w, int h, int bd, int kind, uint32_t seed) {
  const uint32_t peak = (1u << bd) - 1u;
  std::mt19937 rng(seed);
  std::vector<uint16_t> s(static_cast<size_t>(w) * h);
  for (size_t i = 0; i < s.size(); ++i) {
    switch (kind) {
      case 0: s[i] = static_cast<uint16_t>(rng() % (peak + 1)); break;   // noise
      case 1: s[i] = static_cast<uint16_t>(peak); break;                  // all peak
      default: s[i] = static_cast<uint16_t>((i * 7 + i / w) % 2 ? peak : 1); break;
    }
  }
  return s;
}

// The raw plane as a LumaView's bytes (8-bit bytes or little-endian words).
std::vector<uint8_t> Bytes(const std::vector<uint16_t>& s, int bd) {
  std::vector<uint8_t> out;
  for (uint16_t v : s) {
    out.push_back(static_cast<uint8_t>(v & 0xff));
    if (bd > 8) out.push_back(static_cast<uint8_t>(v >> 8));
  }
  return out;
}

struct Size {
  int w, h;
};
const Size kSizes[] = {{37, 23}, {40, 30}, {41, 30}, {40, 31}, {19, 7}, {6, 5}, {3, 2}, {1, 1}};

TEST(Decimate, KernelAndEnginePlanesEqualLibvmafAtScales1To10) {
  ThreadPool pool(2, ThreadPool::Sizing::kWithCaller);
  int planes = 0;
  for (int bd : {8, 10, 12, 16}) {
    for (const Size& size : kSizes) {
      for (int kind = 0; kind < 3; ++kind) {
        const std::vector<uint16_t> raw = Content(size.w, size.h, bd, kind, size.w * 31 + bd);
        const std::vector<uint8_t> bytes = Bytes(raw, bd);
        LumaView view;
        view.data = bytes.data();
        view.stride_bytes = static_cast<size_t>(size.w) * (bd > 8 ? 2 : 1);
        view.width = size.w;
        view.height = size.h;
        view.bit_depth = bd;
        const SamplePlane plane(view);
        for (int f = 1; f <= 10; ++f) {
          int ow = 0, oh = 0;
          const std::vector<float> expected = LiteralDecimate(raw, size.w, size.h, bd, f, &ow, &oh);
          ASSERT_EQ(DecimatedSize(size.w, f), ow);
          ASSERT_EQ(DecimatedSize(size.h, f), oh);
          // The shared kernel, sample by sample.
          const float tap = DecimationTapWeight(f);
          for (int y = 0; y < oh; ++y) {
            for (int x = 0; x < ow; ++x) {
              const float got = f == 1 ? LoadScaled(raw.data(), size.w, x, y, bd)
                                       : DecimatePixel(raw.data(), size.w, size.w, size.h, bd, f,
                                                       tap, x, y);
              const float want = expected[static_cast<size_t>(y) * ow + x];
              ASSERT_EQ(std::memcmp(&got, &want, sizeof got), 0)
                  << bd << "-bit " << size.w << "x" << size.h << " kind " << kind << " scale "
                  << f << " at (" << x << ", " << y << "): " << got << " vs " << want;
            }
          }
          // The CPU engine's whole plane, byte for byte.
          const FloatPlane engine = PrepareFloatPlane(plane, f, pool);
          ASSERT_EQ(engine.width, ow);
          ASSERT_EQ(engine.height, oh);
          // memcmp of an empty plane would pass it null pointers, which is undefined.
          ASSERT_EQ(expected.empty() ? 0
                                     : std::memcmp(engine.samples.data(), expected.data(),
                                                   expected.size() * 4),
                    0)
              << bd << "-bit " << size.w << "x" << size.h << " kind " << kind << " scale " << f;
          ++planes;
        }
      }
    }
  }
  EXPECT_EQ(planes, 4 * 8 * 3 * 10);
}

// Random windows at every scale up to 128 (the exactness bound): the int64 sum equals the
// binary64 sum, and a binary32 running sum (what an unwary kernel would do) does not.
TEST(Decimate, ExactSumMatchesDoubleAndBinary32SumDoesNot) {
  std::mt19937 rng(5);
  for (int f : {2, 3, 5, 6, 7, 9, 10, 16, 31, 64, 128}) {
    const int n = f + 3;
    std::vector<uint16_t> s(static_cast<size_t>(n) * n);
    int float_differs = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const int bd = (trial % 2) ? 16 : 8;
      for (uint16_t& v : s) v = static_cast<uint16_t>(rng() % (1u << bd));
      const float t = DecimationTapWeight(f);
      double dsum = 0.0;
      float fsum = 0.0f;
      for (int v = -(f / 2); v <= f - 1 - f / 2; ++v) {
        for (int u = -(f / 2); u <= f - 1 - f / 2; ++u) {
          const float p = LoadScaled(s.data(), n, Reflect(f + u, n), Reflect(f + v, n), bd) * t;
          dsum += static_cast<double>(p);
          fsum += p;
        }
      }
      const float want = static_cast<float>(dsum);
      const float got = DecimatePixel(s.data(), n, n, n, bd, f, t, 1, 1);
      ASSERT_EQ(std::memcmp(&got, &want, 4), 0) << "scale " << f << " trial " << trial;
      float_differs += fsum != want;
    }
    if (f == 3 || f == 5 || f == 7 || f == 10) {
      EXPECT_GT(float_differs, 0) << "scale " << f;
    }
  }
}

TEST(Decimate, SizesFromTheSpec) {
  EXPECT_EQ(DecimatedSize(1920, 4), 480);
  EXPECT_EQ(DecimatedSize(1080, 4), 270);
  EXPECT_EQ(DecimatedSize(3840, 8), 480);
  EXPECT_EQ(DecimatedSize(1280, 3), 426);
  EXPECT_EQ(DecimatedSize(720, 3), 240);
  EXPECT_EQ(DecimatedSize(1366, 3), 455);
  EXPECT_EQ(DecimatedSize(853, 2), 427);
  EXPECT_EQ(DecimatedSize(481, 2), 241);
  EXPECT_EQ(DecimatedSize(1921, 4), 481);
  EXPECT_EQ(DecimatedSize(855, 3), 286);
  EXPECT_EQ(DecimatedSize(7, 1), 7);
}

TEST(Decimate, AutomaticScaleFromTheSpec) {
  struct Case {
    int short_side, scale;
  };
  for (const Case c : {Case{1, 1}, Case{383, 1}, Case{384, 2}, Case{480, 2}, Case{576, 2},
                       Case{639, 2}, Case{640, 3}, Case{720, 3}, Case{1080, 4}, Case{2160, 8},
                       Case{4320, 17}, Case{32640, 128}}) {
    EXPECT_EQ(AutomaticScale(c.short_side, 40000), c.scale) << c.short_side;
    EXPECT_EQ(AutomaticScale(40000, c.short_side), c.scale) << c.short_side;
  }
  EXPECT_EQ(AutomaticScale(576, 324), 1);
  EXPECT_EQ(AutomaticScale(853, 481), 2);
}

TEST(Decimate, TapWeightsFromTheSpec) {
  EXPECT_EQ(DecimationTapWeight(2), 0.25f);
  EXPECT_EQ(DecimationTapWeight(3), 0x1.c71c72p-4f);
  EXPECT_EQ(DecimationTapWeight(4), 0.0625f);
  EXPECT_EQ(DecimationTapWeight(5), 0x1.47ae14p-5f);
  EXPECT_EQ(DecimationTapWeight(6), 0x1.c71c72p-6f);
  EXPECT_EQ(DecimationTapWeight(7), 0x1.4e5e0ap-6f);
  EXPECT_EQ(DecimationTapWeight(8), 0x1p-6f);
  EXPECT_EQ(DecimationTapWeight(9), 0x1.948b1p-7f);
  EXPECT_EQ(DecimationTapWeight(10), 0x1.47ae14p-7f);
}

TEST(Decimate, SymmetricBoundary) {
  EXPECT_EQ(ReflectSymmetric(-1, 5), 0);
  EXPECT_EQ(ReflectSymmetric(-2, 5), 1);
  EXPECT_EQ(ReflectSymmetric(5, 5), 4);
  EXPECT_EQ(ReflectSymmetric(6, 5), 3);
  EXPECT_EQ(ReflectSymmetric(10, 5), 0);   // one period on
  EXPECT_EQ(ReflectSymmetric(-7, 2), 1);  // beyond one reflection: the fork's periodic form
  EXPECT_EQ(ReflectSymmetric(3, 1), 0);
}

}  // namespace
}  // namespace ssimd
