# Every dependency comes from a Debian package (scripts/setup.d/10-packages.sh
# installs them); nothing is vendored and nothing is downloaded at configure time.
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED CONFIG)          # header-only here: Asio, Beast, System, Process v2
find_package(nlohmann_json 3.11 REQUIRED CONFIG)
find_package(spdlog REQUIRED CONFIG)
find_package(fmt REQUIRED CONFIG)
find_package(CURL REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)    # core only: the registry and text serializer behind GET /metrics
find_package(PkgConfig REQUIRED)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
pkg_check_modules(LIBPQ REQUIRED IMPORTED_TARGET libpq)  # the PostgreSQL store (Debian: libpq-dev)
if(HARNESS_BUILD_TESTS)
  find_package(GTest REQUIRED CONFIG)
  include(GoogleTest)
endif()

# One place that says how Boost is used, so every target compiles it the same way
# (a mismatch between translation units is an ODR violation, not a warning).
add_library(harness_boost INTERFACE)
target_link_libraries(harness_boost INTERFACE Boost::headers Threads::Threads)
target_compile_definitions(harness_boost INTERFACE
  BOOST_ASIO_NO_DEPRECATED
  BOOST_BEAST_USE_STD_STRING_VIEW
  BOOST_ASIO_DISABLE_BOOST_COROUTINE)
