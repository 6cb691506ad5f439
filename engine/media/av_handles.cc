#include "engine/media/av_handles.h"

extern "C" {
#include <libavutil/error.h>
}

namespace ssimd {

std::string AvErrorText(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof(text));
  return text;
}

}  // namespace ssimd
