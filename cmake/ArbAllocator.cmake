# The engine's executables allocate on one scheduler thread and free on another for every
# message; glibc's malloc serialises that on its arena locks. jemalloc (Debian's
# libjemalloc-dev) made arb-stress 1.5-1.7x faster on the 2-core machine (docs/performance.md).
# Only executables link it: a program embedding the libraries keeps its own allocator.
option(ARB_USE_JEMALLOC "Link the executables (arbd, arb-stress, arb-sim) with jemalloc" ON)
if(ARB_USE_JEMALLOC)
  find_library(ARB_JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT ARB_JEMALLOC_LIBRARY)
    message(FATAL_ERROR "jemalloc not found: install libjemalloc-dev (scripts/setup.sh does) "
                        "or configure with -DARB_USE_JEMALLOC=OFF")
  endif()
endif()

# Makes `target` (an executable) use jemalloc for every malloc/new of the process.
function(arb_use_allocator target)
  if(ARB_USE_JEMALLOC)
    target_link_libraries(${target} PRIVATE ${ARB_JEMALLOC_LIBRARY})
  endif()
endfunction()
