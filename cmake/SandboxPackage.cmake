# A Debian package of the kit: `cd build/default && cpack -G DEB` writes
# sandbox-workers_<version>_<arch>.deb, installing under /usr what `cmake --install` installs
# (cmake/SandboxInstall.cmake): headers, static libraries, the CMake package, sandbox-wasmc, the
# built-in engines and the servers. Its Depends are the Debian packages an outside project
# needs to build against the kit (the -dev packages the exported targets name), to run
# sandbox-wasmc (binaryen, wabt), and the shared libraries the programs load that those do not
# bring (libpq5: sandboxd and sandbox-runtime with --database; libedit2: the `sandbox` REPL). tests/kit/check_deb.py checks
# that every library each installed program loads comes from one of them. Its Version is the
# project's (docs/redistribution.md#versions); its /usr/share/doc/sandbox-workers/copyright is
# the MIT licence followed by the third-party notices (cmake/SandboxInstall.cmake).
include_guard(GLOBAL)

set(CPACK_PACKAGE_NAME sandbox-workers)
set(CPACK_PACKAGE_VENDOR "sandbox-workers (C++)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Kit for sandboxed code-interpreter runtimes (sandbox-workers wire protocol 1)")
set(CPACK_PACKAGE_CONTACT "sandbox-workers maintainers <noreply@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_STRIP_FILES ON)
# libpq5 only when the programs link it (SANDBOX_WITH_POSTGRES).
set(_sandbox_libpq_depends "")
if(SANDBOX_WITH_POSTGRES)
  set(_sandbox_libpq_depends "libpq5, ")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libboost-json1.81-dev, libboost-url1.81-dev, libspdlog-dev, libfmt-dev, libsqlite3-dev, libzstd-dev, libseccomp-dev, pkg-config, libssl-dev, ${_sandbox_libpq_depends}libedit2, binaryen, wabt, g++, cmake (>= 3.25)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "clang-19, lld-19, wasi-libc, libclang-rt-19-dev-wasm32")
include(CPack)
