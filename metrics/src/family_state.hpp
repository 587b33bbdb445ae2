#pragma once

// What a registry keeps per metric name: its definition and one metric per label set.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arbroker/metrics/metric.hpp"

namespace arbroker::metrics::detail {

enum class metric_type { counter, gauge, histogram };

struct family_base {
  std::string name;
  std::string help;
  metric_type type;
  std::vector<std::string> label_names;
  std::shared_ptr<const std::vector<double>> bounds;  ///< histograms only

  family_base(std::string n, std::string h, metric_type t, std::vector<std::string> labels)
      : name(std::move(n)), help(std::move(h)), type(t), label_names(std::move(labels)) {}
  virtual ~family_base() = default;

  /// Appends HELP, TYPE and every sample.
  virtual void render(std::string& out) const = 0;

  /// Same definition as `other` (re-registration returns the existing family).
  bool same_definition(const family_base& other) const {
    return name == other.name && help == other.help && type == other.type &&
           label_names == other.label_names && (bounds == nullptr) == (other.bounds == nullptr) &&
           (bounds == nullptr || *bounds == *other.bounds);
  }
};

template <class Metric>
struct family_state final : family_base {
  using family_base::family_base;

  /// Guards `children` (creation and rendering), never the metrics' values.
  mutable std::mutex mutex;
  /// Sorted by label values, so that rendering is deterministic. Never shrinks: references
  /// handed out stay valid.
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> children;

  Metric& child(std::vector<std::string> values);
  void render(std::string& out) const override;
};

}  // namespace arbroker::metrics::detail
