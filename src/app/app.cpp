#include "harness/app/app.hpp"

#include <cstdio>

#include "harness/core/settings.hpp"

namespace harness::app {

int run(int, char**) {
  std::puts("mcp-harness: the server is being built");
  return 0;
}

}  // namespace harness::app
