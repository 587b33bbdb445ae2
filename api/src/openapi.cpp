#include "arbroker/api/openapi.hpp"

#include <nlohmann/json.hpp>

#include <limits>

#include "arbroker/api/protocol.hpp"
#include "wire_model.hpp"

namespace arbroker::api {
namespace {

using json = nlohmann::ordered_json;

std::string ref(const std::string& name) {
  return "#/components/schemas/" + name;
}

json schema_of(const detail::wire_type& t) {
  using kind = detail::wire_type::kind;
  switch (t.k) {
    case kind::string:
      return {{"type", "string"}};
    case kind::boolean:
      return {{"type", "boolean"}};
    case kind::number:
      return {{"type", "number"}, {"format", "double"}};
    case kind::integer: {
      json j{{"type", "integer"}, {"format", t.bits > 32 ? "int64" : "int32"}};
      // The JSON codec refuses integers out of their field's range: say where it is.
      if (!t.is_signed) {
        j["minimum"] = 0;
        if (t.bits < 64) j["maximum"] = (std::uint64_t{1} << t.bits) - 1;
      } else if (t.bits < 32) {
        j["minimum"] = -(std::int64_t{1} << (t.bits - 1));
        j["maximum"] = (std::int64_t{1} << (t.bits - 1)) - 1;
      }
      return j;
    }
    case kind::list:
      return {{"type", "array"}, {"items", schema_of(*t.element)}};
    case kind::enumeration:
    case kind::structure:
      return {{"$ref", ref(t.name)}};
  }
  return json::object();
}

/// What each operation does, for people reading the document.
const char* summary_of(operation op) {
  switch (op) {
    case operation::none:
      return "";
    case operation::elastic:
      return "Reserve, hold or ask what-if for an elastic request on the best cluster";
    case operation::coreserve:
      return "Reserve several clusters for the same time, all or nothing";
    case operation::estimate:
      return "Earliest start of a job per cluster";
    case operation::commit:
      return "Commit a hold (optionally with its jobs)";
    case operation::modify:
      return "Change a reservation's times or CPUs";
    case operation::cancel:
      return "Cancel a reservation or hold";
    case operation::query:
      return "One reservation";
    case operation::list:
      return "The caller's reservations (an admin's: anyone's)";
    case operation::bind_job:
      return "Run a job in a committed reservation";
    case operation::clusters:
      return "The clusters this node brokers";
    case operation::status:
      return "Current state of the clusters";
    case operation::grid_submit:
      return "Submit a best-effort grid job";
    case operation::grid_query:
      return "One grid job";
    case operation::grid_cancel:
      return "Cancel a grid job";
    case operation::grid_list:
      return "The caller's grid jobs";
    case operation::coallocate:
      return "Bind tasks to every part of a co-reservation, all or nothing";
    case operation::job_query:
      return "One job bound to a reservation";
    case operation::job_cancel:
      return "Cancel one job bound to a reservation; the reservation stays";
    case operation::grid_submit_many:
      return "Submit several grid jobs that may wait for each other, all or none";
    case operation::watch:
      return "Watch the changes of reservations and grid jobs (server-sent events)";
  }
  return "";
}

json content(const json& schema) {
  return {{"application/json", {{"schema", schema}}}};
}

json query_parameter(const char* name, json schema, const char* description) {
  return {{"name", name},
          {"in", "query"},
          {"required", false},
          {"schema", std::move(schema)},
          {"description", description}};
}

// GET /v1/watch: server-sent events, not a JSON body (docs/watch.md).
json watch_path(detail::wire_catalogue& c) {
  (void)c.type_of<msg::watch_event>();
  return {
      {"operationId", "watch"},
      {"summary", summary_of(operation::watch)},
      {"description",
       "A text/event-stream (server-sent events) of the changes the caller may see. The first "
       "message is `event: watching` with `data: {\"last\": N}` (where the watch starts); each "
       "change is a message whose `event` is its kind (reservation.created, grid_job.migrated, "
       "...), whose `id` is its event id and whose `data` is a watch_event; a comment "
       "(`: keep-alive`) every 15 s keeps the stream open; the last message, when the node ends "
       "the watch (slow_consumer, gone, unreachable), is `event: error` with an error body. "
       "Resume after a disconnect with `since` (or the Last-Event-ID header, which an "
       "EventSource sends): nothing is lost or repeated."},
      {"parameters",
       json::array(
           {query_parameter(
                "since",
                {{"type", "integer"}, {"format", "int64"}, {"minimum", -1}, {"default", -1}},
                "after this event id: -1 from now on, 0 every event the node keeps"),
            query_parameter("user", {{"type", "string"}},
                            "whose changes (default: the caller's; an admin's empty one: "
                            "everyone's)"),
            query_parameter("kinds", {{"type", "string"}},
                            "comma-separated kinds or families (reservation, grid_job, "
                            "reservation.moved, ...); default every kind"),
            {{"name", "Last-Event-ID"},
             {"in", "header"},
             {"required", false},
             {"schema", {{"type", "integer"}, {"format", "int64"}, {"minimum", -1}}},
             {"description", "the id of the last event seen; overrides since"}}})},
      {"responses",
       {{"200",
         {{"description",
           "the stream; each message's data is a watch_event (or, for "
           "`watching`, {\"last\": N}; for `error`, an error)"},
          {"content",
           {{"text/event-stream",
             {{"schema", {{"type", "string"}}},
              {"x-event-data", {{"$ref", ref("watch_event")}}}}}}}}},
        {"default",
         {{"description",
           "refused before the stream began: 400 a bad parameter, 401, 403 "
           "another user's, 410 the events after since are no longer kept, 503 "
           "too many watches"},
          {"content", content({{"$ref", ref("error")}})}}}}}};
}

std::string build() {
  detail::wire_catalogue c;
  json paths = json::object();
  paths["/v1/openapi.json"]["get"] = {
      {"operationId", "openapi"},
      {"summary", "This document"},
      {"security", json::array()},
      {"responses",
       {{"200",
         {{"description", "the OpenAPI document"}, {"content", content({{"type", "object"}})}}}}}};
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    const auto request = detail::body_type(c, empty_request_body(*op));
    const auto reply = detail::body_type(c, empty_response_body(*op));
    if (*op == operation::watch) {
      paths["/v1/watch"]["get"] = watch_path(c);
      continue;
    }
    paths["/v1/" + std::string(to_string(*op))]["post"] = {
        {"operationId", std::string(to_string(*op))},
        {"summary", summary_of(*op)},
        {"description", "Operation " + std::to_string(code) +
                            " of the msgpack protocol (docs/protocol-reference.md), with the same "
                            "bodies in JSON. An empty body is {}; missing keys keep their "
                            "defaults; unknown keys are refused."},
        {"requestBody", {{"required", false}, {"content", content(schema_of(request))}}},
        {"responses",
         {{"200", {{"description", "done"}, {"content", content(schema_of(reply))}}},
          {"default",
           {{"description", "refused: the status follows the error code (docs/http-api.md)"},
            {"content", content({{"$ref", ref("error")}})}}}}}};
  }

  json schemas = json::object();
  for (const auto& s : c.structs()) {
    json properties = json::object();
    for (const auto& f : s.fields)
      properties[f.name] = schema_of(f.type);
    schemas[s.name] = {{"type", "object"}, {"additionalProperties", false}};
    if (!properties.empty()) schemas[s.name]["properties"] = std::move(properties);
  }
  for (const auto& e : c.enums())
    schemas[e.name] = {{"type", "string"}, {"enum", e.values}};
  json codes = json::array();
  for (int v = 1; v <= static_cast<int>(last_errc); ++v)
    codes.push_back(std::string(to_string(static_cast<errc>(v))));
  schemas["error_code"] = {{"type", "string"}, {"enum", codes}};
  schemas["error"] = {{"type", "object"},
                      {"required", {"code", "error", "message"}},
                      {"properties",
                       {{"code", {{"type", "integer"}, {"minimum", 1}, {"maximum", codes.size()}}},
                        {"error", {{"$ref", ref("error_code")}}},
                        {"message", {{"type", "string"}}},
                        {"detail",
                         {{"description",
                           "the reply body, when it says more than the error (a refused "
                           "elastic request's alternative, a co-reservation's attempts); "
                           "else null"},
                          {"type", "object"},
                          {"nullable", true}}}}}};

  json doc = {{"openapi", "3.0.3"},
              {"info",
               {{"title", "arbroker HTTP/JSON API"},
                {"version", std::to_string(protocol_version)},
                {"description",
                 "The operations of an arbroker node over HTTP with JSON bodies "
                 "(docs/http-api.md). Generated from the code's field lists."}}},
              {"security", json::array({{{"bearer", json::array()}, {"user", json::array()}}})},
              {"paths", std::move(paths)},
              {"components",
               {{"securitySchemes",
                 {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}},
                  {"user", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-Arb-User"}}}}},
                {"schemas", std::move(schemas)}}}};
  return doc.dump(2) + "\n";
}

}  // namespace

const std::string& openapi_document() {
  static const std::string doc = build();
  return doc;
}

}  // namespace arbroker::api
