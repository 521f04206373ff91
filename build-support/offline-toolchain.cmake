# Offline CMake toolchain for the QuickJS engine's build (v8x builds WAMR with
# CMake, which would otherwise git-clone simde from the network).
# simde is header-only; Debian's libsimde-dev puts it under /usr/include/simde.
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "simde headers (libsimde-dev)" FORCE)
set(FETCHCONTENT_FULLY_DISCONNECTED ON CACHE BOOL "no network during the build" FORCE)
