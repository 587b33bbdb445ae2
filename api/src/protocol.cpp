#include "arbroker/api/protocol.hpp"

#include <array>

namespace arbroker::api {

namespace {

constexpr std::array<std::string_view, 20> operation_names = {
    "elastic",    "coreserve",   "estimate",   "commit",           "modify",
    "cancel",     "query",       "list",       "bind_job",         "clusters",
    "status",     "grid_submit", "grid_query", "grid_cancel",      "grid_list",
    "coallocate", "job_query",   "job_cancel", "grid_submit_many", "watch"};

}  // namespace

std::string_view to_string(operation op) noexcept {
  if (op == operation::none) return "none";
  auto i = static_cast<std::size_t>(op);
  if (i < 1 || i > operation_names.size()) return "unknown";
  return operation_names[i - 1];
}

std::optional<operation> to_operation(std::uint8_t code) noexcept {
  if (code < 1 || code > std::variant_size_v<request_body>) return std::nullopt;
  return static_cast<operation>(code);
}

operation operation_of(const request_body& body) noexcept {
  return static_cast<operation>(body.index() + 1);
}

namespace {

template <std::size_t I = 0>
request_body request_body_at(std::size_t index) {
  if constexpr (I + 1 < std::variant_size_v<request_body>) {
    if (index != I) return request_body_at<I + 1>(index);
  }
  return request_body{std::in_place_index<I>};
}

}  // namespace

request_body empty_request_body(operation op) {
  return request_body_at(static_cast<std::size_t>(op) - 1);
}

response_body empty_response_body(operation op) {
  switch (op) {
    case operation::none:
      return std::monostate{};
    case operation::elastic:
      return msg::elastic_reply{};
    case operation::coreserve:
      return msg::coreservation_reply{};
    case operation::estimate:
      return estimate_reply{};
    case operation::commit:
    case operation::modify:
    case operation::query:
      return msg::query_reply{};
    case operation::cancel:
      return msg::ack_reply{};
    case operation::list:
      return msg::list_reply{};
    case operation::bind_job:
      return msg::bind_job_reply{};
    case operation::clusters:
      return cluster_list_reply{};
    case operation::status:
      return status_reply{};
    case operation::grid_submit:
    case operation::grid_query:
    case operation::grid_cancel:
      return msg::grid_job_reply{};
    case operation::grid_list:
      return msg::grid_list_reply{};
    case operation::coallocate:
      return msg::coallocate_reply{};
    case operation::job_query:
    case operation::job_cancel:
      return msg::bound_job_reply{};
    case operation::grid_submit_many:
      return msg::grid_submit_many_reply{};
    case operation::watch:
      return msg::watch_reply{};
  }
  return std::monostate{};
}

std::string subject_of(const request_body& body) {
  return std::visit(
      [](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (requires { b.reservation_id; }) {
          return b.reservation_id;
        } else if constexpr (std::is_same_v<T, msg::coallocate_request>) {
          std::string ids;
          for (const auto& p : b.parts)
            ids += (ids.empty() ? "" : ",") + p.reservation_id;
          return ids;
        } else if constexpr (std::is_same_v<T, msg::grid_query_request> ||
                             std::is_same_v<T, msg::grid_cancel_request>) {
          return b.id;
        } else {
          return {};
        }
      },
      body);
}

std::string subject_of(const response_body& body) {
  auto joined = [](const auto& items, auto id_of) {
    std::string out;
    for (const auto& x : items)
      out += (out.empty() ? "" : ",") + id_of(x);
    return out;
  };
  if (auto* e = std::get_if<msg::elastic_reply>(&body)) return e->reservation.id;
  if (auto* c = std::get_if<msg::coreservation_reply>(&body))
    return joined(c->parts, [](const msg::reservation_info& p) { return p.id; });
  if (auto* g = std::get_if<msg::grid_job_reply>(&body)) return g->job.id;
  if (auto* m = std::get_if<msg::grid_submit_many_reply>(&body))
    return joined(m->jobs, [](const msg::grid_job_info& j) { return j.id; });
  if (auto* b = std::get_if<msg::bind_job_reply>(&body)) return b->job_id;
  if (auto* j = std::get_if<msg::bound_job_reply>(&body)) return j->job.id;
  if (auto* q = std::get_if<msg::query_reply>(&body))
    return joined(q->jobs, [](const std::string& j) { return j; });
  return {};
}

bool carries_detail(const response_body& body) noexcept {
  if (std::holds_alternative<msg::elastic_reply>(body) ||
      std::holds_alternative<msg::coreservation_reply>(body))
    return true;
  if (auto* q = std::get_if<msg::query_reply>(&body)) return !q->info.id.empty();
  if (auto* g = std::get_if<msg::grid_job_reply>(&body)) return !g->job.id.empty();
  return false;
}

bool reply_matches(operation op, const response_body& body) noexcept {
  if (std::holds_alternative<std::monostate>(body)) return true;
  return body.index() == empty_response_body(op).index();
}

response error_response(std::uint64_t id, operation op, const error& e) {
  return response{id, op, static_cast<std::uint8_t>(e.code), e.message, std::monostate{}};
}

}  // namespace arbroker::api
