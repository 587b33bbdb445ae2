#pragma once

// A grid job as the node's store keeps it (store/journal.hpp grid_job_row::body): the
// client's request and the whole state of core's grid_job, msgpack-encoded by its inspect()
// list like every message. Internal to a node; never sent.

#include <cstdint>
#include <string>
#include <string_view>

#include "arbroker/core/grid_job.hpp"
#include "arbroker/messages/grid_job_protocol.hpp"

namespace arbroker::msg {

/// The request, and the job with every field the rules need after a restart.
struct grid_job_record {
  grid_submit_request request;
  grid_job job;
};

/// The format encode_record() writes. Every record carries its format; decode_record() reads
/// every earlier one (fields added since keep their defaults) and refuses a later one.
inline constexpr std::uint32_t record_format = 6;  // 4: node needs; 5: parents' outputs;
                                                   // 6: reservation moves

/// msgpack bytes of a record.
std::string encode_record(const grid_job_record& r);
/// The record in `bytes`; storage_failure naming the reason when they are not one, or are
/// of a format newer than this build's.
result<grid_job_record> decode_record(std::string_view bytes);

}  // namespace arbroker::msg
