# harness::every_errc: the header harness/every_errc.hpp lists every component's
# error enum. It is generated from the include/harness/<component>/errors.hpp
# files themselves, so a new component's codes cannot be left out of the checks
# that cover them all (tests/http/error_codes_test.cpp).
file(GLOB harness_errc_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/harness/*/errors.hpp)
list(SORT harness_errc_headers)
set(HARNESS_ERRC_INCLUDES "")
set(harness_errc_types "")
set(harness_errc_libraries "")
foreach(header IN LISTS harness_errc_headers)
  get_filename_component(folder ${header} DIRECTORY)
  get_filename_component(component ${folder} NAME)
  string(APPEND HARNESS_ERRC_INCLUDES "#include \"harness/${component}/errors.hpp\"\n")
  list(APPEND harness_errc_types "${component}::errc")
  list(APPEND harness_errc_libraries harness::${component})
endforeach()
list(JOIN harness_errc_types ", " HARNESS_ERRC_TYPES)
configure_file(${CMAKE_CURRENT_LIST_DIR}/every_errc.hpp.in ${PROJECT_BINARY_DIR}/generated/harness/every_errc.hpp
               @ONLY)

add_library(harness_every_errc INTERFACE)
add_library(harness::every_errc ALIAS harness_every_errc)
target_include_directories(harness_every_errc INTERFACE ${PROJECT_BINARY_DIR}/generated)
target_link_libraries(harness_every_errc INTERFACE ${harness_errc_libraries})
