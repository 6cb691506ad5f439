#include "client/local_decoding_program.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

namespace ssimd {

std::string LocalDecodingProgram(const std::string& self) {
  const size_t slash = self.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : self.substr(0, slash);
  return dir + "/ssimd-score-frames";
}

int RunLocalDecodingProgram(int argc, char** argv, std::FILE* err) {
  // The program's own file, not argv[0], which a shell or a symlink may have named otherwise.
  char self[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    std::fprintf(err,
                 "ssimd-score: cannot find this program's file to run ssimd-score-frames: %s\n",
                 std::strerror(errno));
    return 1;
  }
  self[n] = '\0';
  const std::string program = LocalDecodingProgram(self);
  std::vector<char*> args;
  args.push_back(const_cast<char*>(program.c_str()));
  static char transport[] = "--transport=frames";
  args.push_back(transport);
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::fflush(nullptr);
  ::execv(program.c_str(), args.data());
  std::fprintf(err,
               "ssimd-score: the frames transport decodes local files in %s, which could not be "
               "run (%s); install it beside ssimd-score, or let the server read the files "
               "(--transport server_files or upload)\n",
               program.c_str(), std::strerror(errno));
  return 1;
}

}  // namespace ssimd
