# Generates build/generated/ntpsim_version.h at every build (not only at configure), so the git SHA
# recorded in every output is the one the binary was built from. No network access.
set(NTPSIM_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
add_custom_target(ntpsim_version_header ALL
  COMMAND ${CMAKE_COMMAND}
    -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${NTPSIM_GENERATED_DIR}/ntpsim_version.h
    -DVERSION=${PROJECT_VERSION} -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
    -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${NTPSIM_GENERATED_DIR}/ntpsim_version.h
  COMMENT "Recording version and git SHA")
