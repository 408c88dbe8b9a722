# Build toolchain and the C++ libraries (all from Debian's archive).
need_apt build-essential cmake ninja-build ccache pkg-config git curl ca-certificates libssl-dev \
  libboost1.81-dev nlohmann-json3-dev libcurl4-openssl-dev libspdlog-dev libfmt-dev \
  libre2-dev libgtest-dev libgmock-dev libsqlite3-dev libpq-dev prometheus-cpp-dev libjwt-dev clang-format \
  jq
