#include "arbroker/actors/lrms_names.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace arbroker {

std::uint64_t lrms_names::number_in(std::string_view digits) {
  std::uint64_t n = 0;
  const char* last = digits.data() + digits.size();
  auto [end, ec] = std::from_chars(digits.data(), last, n);
  return ec == std::errc{} && end == last ? n : 0;
}

std::uint64_t lrms_names::number_in_name(std::string_view lrms_name) const {
  if (lrms_name.size() <= prefix_.size() || lrms_name.compare(0, prefix_.size(), prefix_) != 0)
    return 0;
  return number_in(lrms_name.substr(prefix_.size()));
}

std::optional<std::uint64_t> lrms_names::lease_for(std::uint64_t n) const {
  if (n < lease_) return std::nullopt;
  return n + lease_block;
}

void lrms_names::leased(std::uint64_t upto) {
  lease_ = std::max(lease_, upto);
}

result<std::uint64_t> lrms_names::lease_at_restart(const std::optional<lrms_claim>& claim,
                                                   std::uint64_t last_serial) const {
  if (claim && claim->prefix != prefix_)
    return fail(errc::invalid_parameter,
                "this node's reservations on the cluster are named '" + claim->prefix +
                    "<n>' in its LRMS, not '" + prefix_ +
                    "<n>': with another prefix it would lose them (set name_prefix = \"" +
                    claim->prefix + "\")");
  if (claim) return claim->lease;
  if (last_serial == 0) return std::uint64_t{0};  // a new store: nothing in the LRMS is ours yet
  return std::numeric_limits<std::uint64_t>::max();
}

std::pair<lrms_names::unclaimed, std::uint64_t> lrms_names::classify(std::string_view lrms_name,
                                                                     std::uint64_t lease) const {
  const auto n = number_in_name(lrms_name);
  if (n == 0) return {unclaimed::not_ours, 0};
  return {n < lease ? unclaimed::orphan : unclaimed::foreign, n};
}

}  // namespace arbroker
