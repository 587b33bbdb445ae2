#include "arbroker/core/success_rate.hpp"

#include <array>
#include <cmath>
#include <string>

#include "arbroker/core/enum_names.hpp"
#include "arbroker/core/number_text.hpp"

namespace arbroker {

/// By value.
constexpr std::array<std::string_view, 3> esr_method_names = {"static", "history", "load"};
static_assert(esr_method_names.size() == static_cast<std::size_t>(esr_method::load) + 1);

std::string_view to_string(esr_method method) noexcept {
  return name_in(esr_method_names, method);
}

result<esr_method> parse_esr_method(std::string_view name) {
  if (auto m = value_in<esr_method>(esr_method_names, name)) return *m;
  return fail(errc::invalid_parameter,
              "unknown esr method '" + std::string(name) + "', expected static, history or load");
}

result<std::vector<candidate>> filter_by_esr(std::vector<candidate> candidates, double th) {
  // Written so that NaN fails too.
  if (!(th >= 0.0 && th <= 1.0))
    return fail(errc::invalid_parameter,
                "esr threshold must lie within [0, 1], got " + detail::number_text(th));
  for (const auto& c : candidates) {
    if (c.props.esr && !(*c.props.esr >= 0.0 && *c.props.esr <= 1.0))
      return fail(errc::invalid_parameter,
                  "candidate <" + std::string(c.site) + ", " + std::to_string(c.start) + ", " +
                      std::to_string(c.end) + ", " + std::to_string(c.np) +
                      ">: esr must lie within [0, 1], got " + detail::number_text(*c.props.esr));
  }
  std::erase_if(candidates, [th](const candidate& c) { return c.props.esr.value_or(0.0) < th; });
  return candidates;
}

}  // namespace arbroker
