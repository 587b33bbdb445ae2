#pragma once

// Pieces of the Prometheus text exposition format 0.0.4.

#include <string>
#include <string_view>

namespace arbroker::metrics {

/// Content-Type of a rendered registry.
inline constexpr std::string_view text_content_type = "text/plain; version=0.0.4; charset=utf-8";

/// A HELP text: backslash and line feed escaped.
std::string escape_help(std::string_view text);

/// A label value: backslash, double quote and line feed escaped.
std::string escape_label_value(std::string_view text);

/// A sample value: shortest round-trip decimal, or +Inf, -Inf, NaN.
std::string format_value(double v);

/// True for [a-zA-Z_:][a-zA-Z0-9_:]*.
bool valid_metric_name(std::string_view name);

/// True for [a-zA-Z_][a-zA-Z0-9_]* not starting with "__" (reserved by Prometheus).
bool valid_label_name(std::string_view name);

}  // namespace arbroker::metrics
