// The words of the references (wire_docs.cpp) held to the code: every field documented and
// no entry stale; each operation's example accepted; a field is `required` exactly when
// leaving it out of the example is refused; every documented bound, length and count is
// enforced by validation, naming the field.

#include "wire_docs.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

#include "arbroker/api/json_codec.hpp"
#include "arbroker/api/validate.hpp"
#include "wire_model.hpp"

namespace arbroker::api {
namespace {

using json = nlohmann::json;

std::vector<operation> operations() {
  std::vector<operation> out;
  for (std::uint8_t code = 1; to_operation(code); ++code)
    out.push_back(*to_operation(code));
  return out;
}

// Every struct the protocol carries, with its fields.
struct catalogue {
  detail::wire_catalogue c;
  std::vector<detail::wire_type> requests;
  catalogue() {
    (void)c.type_of<hello>();
    (void)c.type_of<welcome>();
    for (auto op : operations()) {
      requests.push_back(detail::body_type(c, empty_request_body(op)));
      (void)detail::body_type(c, empty_response_body(op));
    }
  }
  const detail::wire_struct* find(const std::string& name) const {
    for (const auto& s : c.structs())
      if (s.name == name) return &s;
    return nullptr;
  }
};

TEST(wire_docs, EveryFieldIsDocumentedAndNoEntryIsStale) {
  catalogue cat;
  std::set<std::string> names;  // every field name, for the entries by name alone
  for (const auto& s : cat.c.structs())
    for (const auto& f : s.fields) {
      names.insert(f.name);
      const auto* d = detail::doc_of(s.name, f.name);
      ASSERT_NE(d, nullptr) << s.name << "." << f.name << " has no entry in wire_docs.cpp";
      EXPECT_FALSE(d->text.empty()) << s.name << "." << f.name;
    }
  for (std::size_t i = 0; i < detail::doc_count(); ++i) {
    const std::string key(detail::doc_key(i));
    const auto dot = key.find('.');
    ASSERT_NE(dot, std::string::npos) << key;
    const auto field = key.substr(dot + 1);
    if (dot == 0) {
      EXPECT_TRUE(names.count(field)) << key << ": no struct has such a field";
      continue;
    }
    const auto* s = cat.find(key.substr(0, dot));
    ASSERT_NE(s, nullptr) << key << ": no such struct";
    bool found = false;
    for (const auto& f : s->fields)
      found = found || f.name == field;
    EXPECT_TRUE(found) << key << ": no such field";
  }
}

TEST(wire_docs, EveryEnumValueErrorCodeAndOperationIsDocumented) {
  catalogue cat;
  for (const auto& e : cat.c.enums())
    for (const auto& v : e.values)
      EXPECT_FALSE(detail::enum_value_doc(e.name, v).empty()) << e.name << " " << v;
  for (int v = 1; v <= static_cast<int>(last_errc); ++v)
    EXPECT_FALSE(detail::errc_doc(static_cast<errc>(v)).empty()) << v;
  for (auto op : operations()) {
    EXPECT_FALSE(detail::operation_doc(op).empty()) << to_string(op);
    EXPECT_FALSE(detail::operation_summary(op).empty()) << to_string(op);
  }
}

// What a node does with a body before the engine has it: decode, fill `est`, validate, and
// put an elastic request or co-reservation in the engine's terms (msg::check, whose errors
// name the field without the operation: "account: ...").
status accepts(operation op, const json& body) {
  auto decoded = request_body_from_json(op, body.dump());
  if (!decoded) return decoded.err();
  fill_defaults(*decoded, 1'800'000'000);
  if (auto s = validate(*decoded); !s) return s;
  if (auto* e = std::get_if<msg::elastic_request>(&*decoded)) {
    e->user = "alice";  // as apply_caller leaves it
    if (auto c = msg::check(*e); !c) return fail(c.err().code, "elastic." + c.err().message);
  } else if (auto* c = std::get_if<msg::coreservation_request>(&*decoded)) {
    c->user = "alice";
    if (auto k = msg::check(*c); !k) return fail(k.err().code, "coreserve." + k.err().message);
  }
  return {};
}

std::string refusal(operation op, const json& body) {
  const auto s = accepts(op, body);
  return s ? "" : s.err().message;
}

json example_of(operation op) {
  return json::parse(detail::operation_example(op));
}

TEST(wire_docs, EveryOperationsExampleIsAccepted) {
  for (auto op : operations()) {
    ASSERT_FALSE(detail::operation_example(op).empty()) << to_string(op);
    EXPECT_EQ(refusal(op, example_of(op)), "") << to_string(op);
  }
}

// Where in a body a struct's fields are: the body itself, or the first element of a list of
// objects in it (components[0], jobs[0], parts[0].jobs[0]), with the path validation names.
struct place {
  json* object;
  std::string path;  ///< "elastic", "coreserve.components[0]"
  std::string structure;
};

void places(json& j, const std::string& path, const std::string& structure, const catalogue& cat,
            std::vector<place>& out) {
  out.push_back({&j, path, structure});
  const auto* s = cat.find(structure);
  if (!s) return;
  for (const auto& f : s->fields) {
    auto t = f.type;
    if (t.k != detail::wire_type::kind::list) continue;
    t = *t.element;
    if (t.k != detail::wire_type::kind::structure || !j.contains(f.name) || j[f.name].empty())
      continue;
    places(j[f.name][0], path + "." + f.name + "[0]", t.name, cat, out);
  }
}

std::string request_struct(operation op, catalogue& cat) {
  return detail::body_type(cat.c, empty_request_body(op)).name;
}

// The example with only its required fields: of a struct reached through a required list,
// its first element keeps its own required fields; every other field is left out.
json minimal(const json& j, const std::string& structure, const catalogue& cat) {
  json out = json::object();
  const auto* s = cat.find(structure);
  for (const auto& f : s->fields) {
    if (!j.contains(f.name) || !detail::doc_of(structure, f.name)->required) continue;
    const auto& element = f.type.element;
    if (f.type.k == detail::wire_type::kind::list &&
        element->k == detail::wire_type::kind::structure)
      out[f.name] = json::array({minimal(j[f.name][0], element->name, cat)});
    else
      out[f.name] = j[f.name];
  }
  return out;
}

// `required` is what validation does: the example with its required fields only is
// accepted (so the others may all be left out), and without any one of them refused. Every
// required field is in the example.
TEST(wire_docs, RequiredIsExactlyWhatValidationRefusesToMiss) {
  catalogue cat;
  for (auto op : operations()) {
    const auto base = minimal(example_of(op), request_struct(op, cat), cat);
    EXPECT_EQ(refusal(op, base), "")
        << to_string(op) << " with only its required fields: " << base.dump();
    auto walk = example_of(op);
    std::vector<place> where;
    places(walk, std::string(to_string(op)), request_struct(op, cat), cat, where);
    for (const auto& p : where) {
      const auto* s = cat.find(p.structure);
      ASSERT_NE(s, nullptr) << p.structure;
      for (const auto& f : s->fields) {
        if (!detail::doc_of(s->name, f.name)->required) continue;
        EXPECT_TRUE(p.object->contains(f.name))
            << p.path << "." << f.name << " is required but not in the example";
      }
    }
    auto bare = base;
    std::vector<place> minimal_places;
    places(bare, std::string(to_string(op)), request_struct(op, cat), cat, minimal_places);
    for (std::size_t i = 0; i < minimal_places.size(); ++i)
      for (const auto& item : minimal_places[i].object->items()) {
        const auto key = item.key();
        auto without = base;
        std::vector<place> w;
        places(without, std::string(to_string(op)), request_struct(op, cat), cat, w);
        w[i].object->erase(key);
        EXPECT_NE(refusal(op, without), "")
            << minimal_places[i].path << "." << key
            << " is documented required, but leaving it out is accepted";
      }
  }
}

// A value beyond a documented bound is refused, and the refusal names the field.
TEST(wire_docs, EveryDocumentedBoundIsEnforced) {
  catalogue cat;
  int checked = 0;
  for (auto op : operations()) {
    const auto base = example_of(op);
    auto walk = base;
    std::vector<place> where;
    places(walk, std::string(to_string(op)), request_struct(op, cat), cat, where);
    for (std::size_t p = 0; p < where.size(); ++p) {
      const auto* s = cat.find(where[p].structure);
      for (const auto& f : s->fields) {
        const auto* d = detail::doc_of(s->name, f.name);
        const std::string at = where[p].path + "." + f.name;
        auto refused_with = [&](const json& value) {
          auto body = base;
          std::vector<place> w;
          places(body, std::string(to_string(op)), request_struct(op, cat), cat, w);
          (*w[p].object)[f.name] = value;
          const auto why = refusal(op, body);
          ++checked;
          EXPECT_EQ(why.rfind(at, 0), 0u)
              << at << " = " << value.dump() << ": " << (why.empty() ? "accepted" : why);
        };
        const bool integer = f.type.k == detail::wire_type::kind::integer;
        if (d->maximum)
          refused_with(integer ? json(static_cast<std::int64_t>(*d->maximum) + 1)
                               : json(*d->maximum * 2 + 1));
        if (d->minimum)
          refused_with(integer ? json(static_cast<std::int64_t>(*d->minimum) - 1)
                               : json(*d->minimum - 1));
        if (d->max_length && f.type.k == detail::wire_type::kind::string)
          refused_with(std::string(d->max_length + 1, 'a'));
        if (d->max_length && f.type.k == detail::wire_type::kind::list)
          refused_with(json::array({std::string(d->max_length + 1, 'a')}));
        if (d->max_items) {
          // One entry too many: copies of the example's first entry, or of a valid one.
          json entry =
              f.type.element->k == detail::wire_type::kind::structure ? json::object() : json("x");
          if (where[p].object->contains(f.name) && !(*where[p].object)[f.name].empty())
            entry = (*where[p].object)[f.name][0];
          refused_with(json(std::vector<json>(d->max_items + 1, entry)));
        }
      }
    }
  }
  EXPECT_GT(checked, 60);
}

}  // namespace
}  // namespace arbroker::api
