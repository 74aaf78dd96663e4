# cmake --install: the shared runtime and full libraries, the public headers, the CLI and a
# package config, so that a consumer writes
#   find_package(kselect CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE kselect::runtime)   # or kselect::kselect (everything)
# The libraries link their dependencies privately and the public headers include only the
# standard library, so a consumer needs none of their development packages (no XGBoost, no
# SQLite); the rule files are embedded in the runtime. docs/install.md.
include(CMakePackageConfigHelpers)
set(KSELECT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kselect)

install(TARGETS kselect_runtime kselect_shared EXPORT kselectTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/kselect DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(TARGETS kselect_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT kselectTargets NAMESPACE kselect:: DESTINATION ${KSELECT_CMAKE_DIR})

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/kselectConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/kselectConfig.cmake
                              INSTALL_DESTINATION ${KSELECT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kselectConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kselectConfig.cmake ${CMAKE_BINARY_DIR}/kselectConfigVersion.cmake
        DESTINATION ${KSELECT_CMAKE_DIR})
