#!/usr/bin/env bash
# Builds the API's libFuzzer target with clang (the project itself builds with g++): only
# the CAF-free sources it needs, with ASan and UBSan.
#   build_fuzzer.sh <source dir> <output binary>
set -euo pipefail
src=$1
out=$2
cxx=${CLANGXX:-clang++}
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DMSGPACK_DEFAULT_API_VERSION=3 \
  -I"$src/api/include" -I"$src/messages/include" -I"$src/core/include" \
  "$src/api/fuzz/fuzz_frames.cpp" \
  "$src/api/src/codec.cpp" "$src/api/src/protocol.cpp" "$src/api/src/validate.cpp" \
  "$src/api/src/protocol_versions.cpp" \
  "$src/api/src/json_codec.cpp" "$src/messages/src/enum_names.cpp" \
  "$src/messages/src/speedup_spec.cpp" "$src/messages/src/fields.cpp" \
  "$src/messages/src/watch_protocol.cpp" \
  "$src/core/src/error.cpp" "$src/core/src/preference.cpp" "$src/core/src/speedup.cpp" \
  "$src/core/src/grid_job.cpp" "$src/core/src/job_requirements.cpp" \
  "$src/core/src/time_format.cpp" \
  "$src/core/src/success_rate.cpp" "$src/core/src/reservation_state.cpp" \
  -o "$out"
