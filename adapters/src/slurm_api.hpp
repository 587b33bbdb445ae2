#pragma once
// The libslurm C API (Slurm 22.05), included in one place with its warnings silenced: the
// headers are C and not written for -Wall -Wextra -Wshadow -Werror under C++.

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#pragma GCC diagnostic pop

extern "C" {
/// libslurm's configuration of this process (exported by libslurm.so; its type is public in
/// slurm.h but the variable is declared only in Slurm's internal headers). The adapter sets
/// its msg_timeout after slurm_init so that a dead controller is detected quickly.
extern slurm_conf_t slurm_conf;
}
