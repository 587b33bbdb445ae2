// Names of the wire enums declared in messages/, for messages and logs.

#include "arbroker/messages/broker_protocol.hpp"
#include "arbroker/messages/cluster_protocol.hpp"

namespace arbroker::msg {

std::string_view to_string(request_mode m) noexcept {
  switch (m) {
    case request_mode::reserve:
      return "reserve";
    case request_mode::hold:
      return "hold";
    case request_mode::whatif:
      return "whatif";
  }
  return "unknown";
}

std::string_view to_string(refusal r) noexcept {
  switch (r) {
    case refusal::none:
      return "none";
    case refusal::service:
      return "service";
    case refusal::lrms:
      return "lrms";
  }
  return "unknown";
}

}  // namespace arbroker::msg
