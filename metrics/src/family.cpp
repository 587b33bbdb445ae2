#include "arbroker/metrics/family.hpp"

#include <stdexcept>

#include "arbroker/metrics/text_format.hpp"
#include "family_state.hpp"

namespace arbroker::metrics {
namespace detail {
namespace {

std::unique_ptr<counter> make(const family_state<counter>&) {
  return std::make_unique<counter>();
}
std::unique_ptr<gauge> make(const family_state<gauge>&) {
  return std::make_unique<gauge>();
}
std::unique_ptr<histogram> make(const family_state<histogram>& f) {
  return std::make_unique<histogram>(f.bounds);
}

const char* type_name(metric_type t) {
  switch (t) {
    case metric_type::counter:
      return "counter";
    case metric_type::gauge:
      return "gauge";
    case metric_type::histogram:
      return "histogram";
  }
  return "untyped";
}

// `{a="x",b="y"` without the closing brace (a histogram adds le), or "" without labels.
std::string open_labels(const std::vector<std::string>& names,
                        const std::vector<std::string>& values) {
  if (names.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i];
    out += "=\"";
    out += escape_label_value(values[i]);
    out += '"';
  }
  return out;
}

std::string close_labels(const std::string& open) {
  return open.empty() ? open : open + "}";
}

void sample(std::string& out, const std::string& name, std::string_view suffix,
            const std::string& labels, const std::string& value) {
  out += name;
  out += suffix;
  out += labels;
  out += ' ';
  out += value;
  out += '\n';
}

void render_value(std::string& out, const family_base& f, const std::string& labels,
                  const counter& c) {
  sample(out, f.name, "", close_labels(labels), std::to_string(c.value()));
}

void render_value(std::string& out, const family_base& f, const std::string& labels,
                  const gauge& g) {
  sample(out, f.name, "", close_labels(labels), format_value(g.value()));
}

void render_value(std::string& out, const family_base& f, const std::string& labels,
                  const histogram& h) {
  const auto s = h.read();
  const std::string le_open = labels.empty() ? "{le=\"" : labels + ",le=\"";
  for (std::size_t i = 0; i < s.cumulative.size(); ++i) {
    const bool last = i + 1 == s.cumulative.size();
    const std::string le = last ? "+Inf" : format_value(h.bounds()[i]);
    sample(out, f.name, "_bucket", le_open + le + "\"}", std::to_string(s.cumulative[i]));
  }
  sample(out, f.name, "_sum", close_labels(labels), format_value(s.sum));
  sample(out, f.name, "_count", close_labels(labels), std::to_string(s.count));
}

}  // namespace

template <class Metric>
Metric& family_state<Metric>::child(std::vector<std::string> values) {
  if (values.size() != label_names.size())
    throw std::invalid_argument("metric " + name + ": " + std::to_string(values.size()) +
                                " label values for " + std::to_string(label_names.size()) +
                                " labels");
  std::lock_guard lock(mutex);
  auto& slot = children[std::move(values)];
  if (!slot) slot = make(*this);
  return *slot;
}

template <class Metric>
void family_state<Metric>::render(std::string& out) const {
  out += "# HELP " + name + ' ' + escape_help(help) + '\n';
  out += "# TYPE " + name + ' ' + type_name(type) + '\n';
  std::lock_guard lock(mutex);
  for (const auto& [values, metric] : children)
    render_value(out, *this, open_labels(label_names, values), *metric);
}

template struct family_state<counter>;
template struct family_state<gauge>;
template struct family_state<histogram>;

}  // namespace detail

template <class Metric>
Metric& family<Metric>::with(std::initializer_list<std::string_view> values) const {
  return state_->child(std::vector<std::string>(values.begin(), values.end()));
}

template <class Metric>
Metric& family<Metric>::with(std::span<const std::string> values) const {
  return state_->child(std::vector<std::string>(values.begin(), values.end()));
}

template <class Metric>
const std::string& family<Metric>::name() const {
  return state_->name;
}

template class family<counter>;
template class family<gauge>;
template class family<histogram>;

}  // namespace arbroker::metrics
