#include "arbroker/core/success_rate.hpp"

#include <cmath>
#include <string>

#include "arbroker/core/number_text.hpp"

namespace arbroker {

std::string_view to_string(esr_method method) noexcept {
  switch (method) {
    case esr_method::static_:
      return "static";
    case esr_method::history:
      return "history";
    case esr_method::load:
      return "load";
  }
  return "unknown";
}

result<esr_method> parse_esr_method(std::string_view name) {
  for (auto m : {esr_method::static_, esr_method::history, esr_method::load})
    if (name == to_string(m)) return m;
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
