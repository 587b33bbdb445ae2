# Every arbroker target compiles warning-free: -Wall -Wextra -Werror.
function(arb_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor)
endfunction()
