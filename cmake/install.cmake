# Installation: headers, libopnn, the opnn program, a CMake package (find_package(opnn) gives
# opnn::opnn) and opnn.pc for pkg-config. Included by the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(OPNN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/opnn CACHE STRING
    "Where opnnConfig.cmake is installed, relative to the prefix")
set(OPNN_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig CACHE STRING
    "Where opnn.pc is installed, relative to the prefix")

if(NOT OPNN_SHARED)
    # Users of the static archive must not declare the API as imported from a shared object.
    target_compile_definitions(opnn INTERFACE OPNN_STATIC)
    if(OPNN_HAVE_CUDA)
        # The CUDA objects' host code needs the C++ runtime (function-local statics); a C program
        # linking the archive with the C driver would not bring it.
        target_link_libraries(opnn PRIVATE stdc++)
    endif()
endif()
# An installed libopnn finds the CUDA runtime where it was linked from; the program finds
# libopnn beside it in the prefix.
set_target_properties(opnn PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/opnn
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT opnn_dev
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")

install(TARGETS opnn EXPORT opnnTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT opnn_runtime
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT opnn_runtime
                NAMELINK_COMPONENT opnn_dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT opnn_dev)

if(TARGET opnn_tool)
    file(RELATIVE_PATH opnn_bin_to_lib
         ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
    set_target_properties(opnn_tool PROPERTIES
        INSTALL_RPATH "$ORIGIN/${opnn_bin_to_lib}"
        INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS opnn_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
            COMPONENT opnn_runtime)
endif()

# --- CMake package ----------------------------------------------------------------------------
install(EXPORT opnnTargets
        NAMESPACE opnn::
        DESTINATION ${OPNN_INSTALL_CMAKEDIR}
        COMPONENT opnn_dev)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/opnnConfig.cmake.in
    ${PROJECT_BINARY_DIR}/opnnConfig.cmake
    INSTALL_DESTINATION ${OPNN_INSTALL_CMAKEDIR})
# 0.x: minor versions may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/opnnConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/opnnConfig.cmake ${PROJECT_BINARY_DIR}/opnnConfigVersion.cmake
        DESTINATION ${OPNN_INSTALL_CMAKEDIR}
        COMPONENT opnn_dev)

# --- pkg-config -------------------------------------------------------------------------------
# The prefix is found from the .pc file's own place, so `cmake --install --prefix DIR` works.
file(RELATIVE_PATH opnn_pc_to_prefix
     /opnn-prefix/${OPNN_INSTALL_PKGCONFIGDIR} /opnn-prefix)
string(REGEX REPLACE "/$" "" opnn_pc_to_prefix "${opnn_pc_to_prefix}")
if(IS_ABSOLUTE ${CMAKE_INSTALL_LIBDIR})
    set(OPNN_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
else()
    set(OPNN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE ${CMAKE_INSTALL_INCLUDEDIR})
    set(OPNN_PC_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
else()
    set(OPNN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# The public headers include <dlpack/dlpack.h>; name its directory unless the compiler
# searches it anyway.
set(OPNN_PC_CFLAGS "")
if(NOT OPNN_DLPACK_INCLUDE IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
    string(APPEND OPNN_PC_CFLAGS " -I${OPNN_DLPACK_INCLUDE}")
endif()
set(OPNN_PC_LIBS_PRIVATE "${OpenMP_C_FLAGS} -lpthread")
foreach(lib IN LISTS CMAKE_DL_LIBS)
    string(APPEND OPNN_PC_LIBS_PRIVATE " -l${lib}")
endforeach()
string(APPEND OPNN_PC_LIBS_PRIVATE " -lm")
if(OPNN_HAVE_CUDA)
    string(APPEND OPNN_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart -lstdc++")
endif()
if(OPNN_SHARED)
    set(OPNN_PC_LIBS "-L\${libdir} -lopnn")
else()
    # pkg-config users of a static archive rarely pass --static: list what it needs here.
    string(APPEND OPNN_PC_CFLAGS " -DOPNN_STATIC")
    set(OPNN_PC_LIBS "-L\${libdir} -lopnn ${OPNN_PC_LIBS_PRIVATE}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/opnn.pc.in ${PROJECT_BINARY_DIR}/opnn.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/opnn.pc
        DESTINATION ${OPNN_INSTALL_PKGCONFIGDIR}
        COMPONENT opnn_dev)

# --- the install test: install into a temporary prefix, build and run a client against it ----
if(OPNN_BUILD_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/tests/install/run.sh)
    add_test(NAME install_client
             COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install/run.sh ${PROJECT_BINARY_DIR})
    set_tests_properties(install_client PROPERTIES
        LABELS "cpu"
        ENVIRONMENT "CC=${CMAKE_C_COMPILER};CFLAGS=${CMAKE_C_FLAGS};LDFLAGS=${CMAKE_EXE_LINKER_FLAGS};OPNN_EXPECT_TOOL=$<TARGET_EXISTS:opnn_tool>")
endif()
