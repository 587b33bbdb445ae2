#include "arbroker/messages/fields.hpp"

namespace arbroker::msg {

std::vector<std::string> parse_field_list(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const auto comma = list.find(',');
    auto item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (item.substr(0, 2) == "x.") item.remove_prefix(2);
    out.emplace_back(item);
  }
  return out;
}

}  // namespace arbroker::msg
