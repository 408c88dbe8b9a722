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

# harness_test(<name> SOURCES ... [DEPS ...] [LABELS unit|integration] [TIMEOUT s] [GVISOR])
# One gtest executable; each test case becomes its own ctest entry.
# GVISOR: the same tests also run with every sandbox under gVisor, as
# <name>_gvisor (its cases "gvisor.<Suite>.<Case>", label gvisor, so
# ./scripts/test.sh -L gvisor runs them alone). The sources compile once, into
# <name>_objects: set compile options on ${HARNESS_TEST_COMPILED}, which names
# the target that compiles the sources either way.
function(harness_test name)
  cmake_parse_arguments(ARG "GVISOR" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  if(ARG_GVISOR)
    set(compiled ${name}_objects)
    add_library(${compiled} OBJECT ${ARG_SOURCES})
    add_executable(${name})
    target_link_libraries(${name} PRIVATE ${compiled} GTest::gtest_main)
    # tests/support/gvisor_main.cpp sets SANDBOX_RUNTIME=runsc before the tests run.
    add_executable(${name}_gvisor ${PROJECT_SOURCE_DIR}/tests/support/gvisor_main.cpp)
    target_link_libraries(${name}_gvisor PRIVATE ${compiled})
    harness_warnings(${name}_gvisor)
  else()
    set(compiled ${name})
    add_executable(${name} ${ARG_SOURCES})
    target_link_libraries(${compiled} PRIVATE GTest::gtest_main)
  endif()
  set(HARNESS_TEST_COMPILED ${compiled} PARENT_SCOPE)
  target_link_libraries(${compiled} PUBLIC ${ARG_DEPS} GTest::gtest GTest::gmock)
  target_include_directories(${compiled} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  # A component's tests (tests/<c>/) may include its private headers (src/<c>/).
  get_filename_component(tested ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/src/${tested})
    target_include_directories(${compiled} PRIVATE ${PROJECT_SOURCE_DIR}/src/${tested})
  endif()
  harness_warnings(${compiled})
  # ctest's ENVIRONMENT property cannot carry two variables through
  # gtest_discover_tests (its list separator splits them), so the build
  # directory comes in as a compile definition.
  target_compile_definitions(${compiled} PRIVATE HARNESS_TEST_BINARY_DIR="${PROJECT_BINARY_DIR}"
                                                 HARNESS_TEST_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
               ENVIRONMENT "HARNESS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(ARG_GVISOR)
    gtest_discover_tests(${name}_gvisor
      DISCOVERY_MODE PRE_TEST
      TEST_PREFIX "gvisor."
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      PROPERTIES LABELS gvisor TIMEOUT ${ARG_TIMEOUT}
                 ENVIRONMENT "HARNESS_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  endif()
endfunction()
