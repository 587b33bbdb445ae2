#include "arbroker/api/openapi.hpp"

#include <nlohmann/json.hpp>

#include <set>

#include "arbroker/api/http_server.hpp"
#include "arbroker/api/protocol.hpp"
#include "arbroker/api/validate.hpp"
#include "wire_docs.hpp"
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

json value_json(const detail::wire_value& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return nullptr;
        else if constexpr (std::is_same_v<T, detail::empty_list>)
          return json::array();
        else
          return x;
      },
      v);
}

/// A number as JSON: an integer where it is one (the bounds of integer fields).
json number_json(double x) {
  if (x == static_cast<double>(static_cast<std::int64_t>(x))) return static_cast<std::int64_t>(x);
  return x;
}

// The unit in words: "Unix s" is a time, "s" a duration.
std::string unit_words(std::string_view unit) {
  if (unit == "Unix s") return "seconds since 1970-01-01 UTC";
  if (unit == "s") return "seconds";
  if (unit == "pp") return "processor power, as clusters publish it";
  return std::string(unit);
}

std::string described(const detail::field_doc& d) {
  std::string text(d.text);
  if (!d.unit.empty()) text += " Unit: " + unit_words(d.unit) + ".";
  return text;
}

/// The schema of one field: its type, what it means, its unit, its default (in a request)
/// and the bounds validation holds it to.
json field_schema(const std::string& structure, const detail::wire_field& f, bool in_request) {
  json j = schema_of(f.type);
  const auto* d = detail::doc_of(structure, f.name);
  if (!d) throw std::logic_error("undocumented field " + structure + "." + f.name);
  if (j.contains("$ref")) j = {{"allOf", json::array({j})}};  // 3.0: $ref takes no siblings
  j["description"] = described(*d);
  if (!d->unit.empty()) j["x-unit"] = std::string(d->unit);
  if (in_request) {
    // A field a request must give has no default to speak of.
    if (auto v = value_json(f.default_value); !v.is_null() && !d->required)
      j["default"] = std::move(v);
    if (d->minimum) j["minimum"] = number_json(*d->minimum);
    if (d->maximum) j["maximum"] = number_json(*d->maximum);
    if (d->max_length) {
      if (j["type"] == "array")
        j["items"]["maxLength"] = d->max_length;
      else
        j["maxLength"] = d->max_length;
    }
    if (d->max_items) j["maxItems"] = d->max_items;
  }
  return j;
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

// Each status with the error codes it carries (what each means is error_code's description)
// and what else answers with it.
json error_responses() {
  json out = json::object();
  for (const auto& s : detail::http_status_docs()) {
    std::string text;
    for (const auto code : detail::codes_of_status(s.status))
      text += (text.empty() ? "" : "; ") + std::string(to_string(code)) + " (" +
              std::to_string(static_cast<int>(code)) + "): " + std::string(detail::errc_doc(code));
    if (!s.also.empty()) text += (text.empty() ? "" : ". Also: ") + std::string(s.also);
    out[std::to_string(s.status)] = {{"description", text + "."},
                                     {"content", content({{"$ref", ref("error")}})}};
  }
  return out;
}

json response_refs(bool watch) {
  json out = json::object();
  for (const auto& s : detail::http_status_docs()) {
    if (s.status == 410 && !watch) continue;  // gone: only a watch resumed too late
    if (s.status == 413 && watch) continue;   // a GET has no body
    out[std::to_string(s.status)] = {
        {"$ref", "#/components/responses/" + std::to_string(s.status)}};
  }
  return out;
}

// GET /v1/watch: server-sent events, not a JSON body (docs/watch.md).
json watch_path(detail::wire_catalogue& c) {
  (void)c.type_of<msg::watch_event>();
  json responses = {
      {"200",
       {{"description",
         "the stream; each message's data is a watch_event (or, for `watching`, {\"last\": N}; "
         "for `error`, an error)"},
        {"content",
         {{"text/event-stream",
           {{"schema", {{"type", "string"}}},
            {"x-event-data", {{"$ref", ref("watch_event")}}}}}}}}}};
  responses.update(response_refs(true));
  return {
      {"operationId", "watch"},
      {"summary", detail::operation_summary(operation::watch)},
      {"description",
       "A text/event-stream (server-sent events) of the changes the caller may see. The first "
       "message is `event: watching` with `data: {\"last\": N}` (where the watch starts); each "
       "change is a message whose `event` is its kind (reservation.created, grid_job.migrated, "
       "...), whose `id` is its event id and whose `data` is a watch_event; a comment "
       "(`: keep-alive`) every 15 s keeps the stream open; the last message, when the node ends "
       "the watch (slow_consumer, gone, unreachable), is `event: error` with an error body. "
       "Resume after a disconnect with `since` (or the Last-Event-ID header, which an "
       "EventSource sends): nothing is lost or repeated. Refusals before the stream begins are "
       "JSON errors with the statuses below."},
      {"parameters",
       json::array(
           {query_parameter(
                "since",
                {{"type", "integer"}, {"format", "int64"}, {"minimum", -1}, {"default", -1}},
                "after this event id: -1 from now on, 0 every event the node keeps"),
            query_parameter("user", {{"type", "string"}, {"maxLength", bounds::max_name}},
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
      {"responses", std::move(responses)}};
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
  std::vector<detail::wire_type> requests;
  for (std::uint8_t code = 1;; ++code) {
    const auto op = to_operation(code);
    if (!op) break;
    const auto request = detail::body_type(c, empty_request_body(*op));
    const auto reply = detail::body_type(c, empty_response_body(*op));
    requests.push_back(request);
    if (*op == operation::watch) {
      paths["/v1/watch"]["get"] = watch_path(c);
      continue;
    }
    json responses = {{"200", {{"description", "done"}, {"content", content(schema_of(reply))}}}};
    responses.update(response_refs(false));
    json body = {{"schema", schema_of(request)}};
    if (const auto example = detail::operation_example(*op); !example.empty())
      body["example"] = json::parse(example);
    paths["/v1/" + std::string(to_string(*op))]["post"] = {
        {"operationId", std::string(to_string(*op))},
        {"summary", detail::operation_summary(*op)},
        {"description",
         std::string(detail::operation_doc(*op)) + " Operation " + std::to_string(code) +
             " of the msgpack protocol (docs/protocol-reference.md), with the same bodies in "
             "JSON. An empty body is {}; a missing key keeps its default; an unknown key is "
             "refused."},
        {"requestBody",
         {{"required", false}, {"content", {{"application/json", std::move(body)}}}}},
        {"responses", std::move(responses)}};
  }

  const auto in_requests = detail::structs_reached(c, requests);

  json schemas = json::object();
  for (const auto& s : c.structs()) {
    // A struct of requests documents defaults, bounds and what must be given; a struct only
    // of replies has every field, always.
    const bool request = in_requests.count(s.name) > 0;
    json properties = json::object();
    json required = json::array();
    for (const auto& f : s.fields) {
      properties[f.name] = field_schema(s.name, f, request);
      if (!request || detail::doc_of(s.name, f.name)->required) required.push_back(f.name);
    }
    schemas[s.name] = {{"type", "object"}, {"additionalProperties", false}};
    if (!properties.empty()) schemas[s.name]["properties"] = std::move(properties);
    if (!required.empty()) schemas[s.name]["required"] = std::move(required);
  }
  for (const auto& e : c.enums()) {
    std::string text = "One of: ";
    for (std::size_t i = 0; i < e.values.size(); ++i) {
      text += (i ? "; " : "") + e.values[i];
      if (const auto d = detail::enum_value_doc(e.name, e.values[i]); !d.empty())
        text += " (" + std::string(d) + ")";
    }
    schemas[e.name] = {{"type", "string"}, {"enum", e.values}, {"description", text + "."}};
  }
  json codes = json::array();
  std::string code_text = "The error's name: ";
  for (int v = 1; v <= static_cast<int>(last_errc); ++v) {
    const auto code = static_cast<errc>(v);
    codes.push_back(std::string(to_string(code)));
    code_text += (v > 1 ? "; " : "") + std::string(to_string(code)) + " (" + std::to_string(v) +
                 ", HTTP " + std::to_string(http_status_of(code)) +
                 "): " + std::string(detail::errc_doc(code));
  }
  schemas["error_code"] = {{"type", "string"}, {"enum", codes}, {"description", code_text + "."}};
  schemas["error"] = {
      {"type", "object"},
      {"description", "Every answer other than 200."},
      {"required", {"code", "error", "message", "detail"}},
      {"properties",
       {{"code",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", codes.size()},
          {"description", "The error code's number (docs/protocol-reference.md)."}}},
        {"error", {{"$ref", ref("error_code")}}},
        {"message", {{"type", "string"}, {"description", "For people; names the field."}}},
        {"detail",
         {{"description",
           "the reply body, when it says more than the error (a refused elastic request's "
           "alternative, a co-reservation's attempts, the reservation a refused transition "
           "left as it was); else null"},
          {"type", "object"},
          {"nullable", true}}}}}};

  json doc = {
      {"openapi", "3.0.3"},
      {"info",
       {{"title", "arbroker HTTP/JSON API"},
        {"version", std::to_string(protocol_version)},
        {"description",
         "The operations of an arbroker node over HTTP with JSON bodies (docs/http-api.md). "
         "Generated from the code's field lists and api/src/wire_docs.cpp. Times are Unix "
         "seconds (UTC), durations seconds; every request names its user (X-Arb-User) and "
         "proves it (Authorization: Bearer <token>)."}}},
      {"security", json::array({{{"bearer", json::array()}, {"user", json::array()}}})},
      {"paths", std::move(paths)},
      {"components",
       {{"securitySchemes",
         {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}},
          {"user", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-Arb-User"}}}}},
        {"responses", error_responses()},
        {"schemas", std::move(schemas)}}}};
  return doc.dump(2) + "\n";
}

}  // namespace

const std::string& openapi_document() {
  static const std::string doc = build();
  return doc;
}

}  // namespace arbroker::api
