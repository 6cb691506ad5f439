// For tests of the inputs by reference: everything left to read from a descriptor the server
// handed out, which is then closed.
#ifndef SSIMD_SERVER_READ_FD_FOR_TEST_H_
#define SSIMD_SERVER_READ_FD_FOR_TEST_H_

#include <unistd.h>

#include <string>

namespace ssimd {

inline std::string ReadAndClose(int fd) {
  std::string out;
  char buffer[65536];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<size_t>(n));
  close(fd);
  return out;
}

}  // namespace ssimd

#endif  // SSIMD_SERVER_READ_FD_FOR_TEST_H_
