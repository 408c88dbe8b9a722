# Helpers that give every component and test the same flags and layout.

function(harness_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    # GCC 12 misreports Asio's coroutine frame allocator (operator new/delete
    # of awaitable_frame) as mismatched; the pair is correct.
    -Wno-mismatched-new-delete)
  if(HARNESS_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(HARNESS_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# harness_component(<name> SOURCES ... [DEPS ...] [PCH ...])
# Builds the static library harness_<name> (alias harness::<name>) whose public
# headers live in include/harness/<name>/.
function(harness_component name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PCH" ${ARGN})
  add_library(harness_${name} STATIC ${ARG_SOURCES})
  add_library(harness::${name} ALIAS harness_${name})
  target_include_directories(harness_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  # Headers only this component uses live beside its sources (src/<name>/x.hpp)
  # and are included as "x.hpp", also from its subfolders.
  target_include_directories(harness_${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(harness_${name} PUBLIC ${ARG_DEPS})
  if(ARG_PCH)
    target_precompile_headers(harness_${name} PRIVATE ${ARG_PCH})
  endif()
  harness_warnings(harness_${name})
endfunction()

# harness_test(<name> SOURCES ... [DEPS ...] [LABELS unit|integration] [TIMEOUT s])
# One gtest executable; each test case becomes its own ctest entry.
function(harness_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  # A component's tests (tests/<c>/) may include its private headers (src/<c>/).
  get_filename_component(tested ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/src/${tested})
    target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src/${tested})
  endif()
  harness_warnings(${name})
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
               ENVIRONMENT "HARNESS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  # ctest's ENVIRONMENT property cannot carry two variables through
  # gtest_discover_tests (its list separator splits them), so the build
  # directory comes in as a compile definition.
  target_compile_definitions(${name} PRIVATE HARNESS_TEST_BINARY_DIR="${PROJECT_BINARY_DIR}"
                                             HARNESS_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()
