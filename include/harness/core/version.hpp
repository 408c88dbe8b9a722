// The version of this build, from project() in CMakeLists.txt.
#pragma once

namespace harness::core {
const char* version();
}
