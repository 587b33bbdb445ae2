#include "arbroker/metrics/registry.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "arbroker/metrics/text_format.hpp"
#include "family_state.hpp"

namespace arbroker::metrics {
namespace {

status check_names(const std::string& name, const std::vector<std::string>& labels,
                   bool histogram) {
  if (!valid_metric_name(name))
    return fail(errc::invalid_parameter,
                "metric name '" + name + "' must match [a-zA-Z_:][a-zA-Z0-9_:]*");
  std::set<std::string> seen;
  for (const auto& l : labels) {
    if (!valid_label_name(l))
      return fail(errc::invalid_parameter, "metric " + name + ": label name '" + l +
                                               "' must match [a-zA-Z_][a-zA-Z0-9_]* "
                                               "and not start with __");
    if (histogram && l == "le")
      return fail(errc::invalid_parameter,
                  "metric " + name + ": a histogram cannot have a label named le");
    if (!seen.insert(l).second)
      return fail(errc::invalid_parameter, "metric " + name + ": label '" + l + "' given twice");
  }
  return {};
}

}  // namespace

registry::registry() = default;
registry::~registry() = default;

template <class Metric>
result<family<Metric>> registry::add(std::unique_ptr<detail::family_state<Metric>> f) {
  if (auto ok = check_names(f->name, f->label_names, f->type == detail::metric_type::histogram);
      !ok)
    return ok.err();
  std::lock_guard lock(mutex_);
  for (const auto& existing : families_) {
    if (existing->name != f->name) continue;
    if (!existing->same_definition(*f))
      return fail(errc::invalid_parameter, "metric " + f->name +
                                               " is already registered with another type, help, "
                                               "labels or buckets");
    return family<Metric>(static_cast<detail::family_state<Metric>*>(existing.get()));
  }
  auto* state = f.get();
  // A family without labels has exactly one metric: show it (as 0) before its first update.
  if (state->label_names.empty()) state->child({});
  families_.push_back(std::move(f));
  return family<Metric>(state);
}

result<family<counter>> registry::add_counter(std::string name, std::string help,
                                              std::vector<std::string> label_names) {
  return add(std::make_unique<detail::family_state<counter>>(
      std::move(name), std::move(help), detail::metric_type::counter, std::move(label_names)));
}

result<family<gauge>> registry::add_gauge(std::string name, std::string help,
                                          std::vector<std::string> label_names) {
  return add(std::make_unique<detail::family_state<gauge>>(
      std::move(name), std::move(help), detail::metric_type::gauge, std::move(label_names)));
}

result<family<histogram>> registry::add_histogram(std::string name, std::string help,
                                                  std::vector<double> bounds,
                                                  std::vector<std::string> label_names) {
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]))
      return fail(errc::invalid_parameter, "metric " + name + ": bucket bound " +
                                               format_value(bounds[i]) +
                                               " is not finite (+Inf is implicit)");
    if (i > 0 && bounds[i] <= bounds[i - 1])
      return fail(errc::invalid_parameter, "metric " + name + ": bucket bounds must increase (" +
                                               format_value(bounds[i - 1]) + " then " +
                                               format_value(bounds[i]) + ")");
  }
  auto f = std::make_unique<detail::family_state<histogram>>(
      std::move(name), std::move(help), detail::metric_type::histogram, std::move(label_names));
  f->bounds = std::make_shared<const std::vector<double>>(std::move(bounds));
  return add(std::move(f));
}

std::string registry::render() const {
  std::string out;
  std::lock_guard lock(mutex_);
  for (const auto& f : families_)
    f->render(out);
  return out;
}

std::vector<double> latency_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

}  // namespace arbroker::metrics
