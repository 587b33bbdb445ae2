// `arb submit-dag FILE`: several grid jobs and the dependencies between them, in TOML. Every key
// is one of `arb submit`'s options without its dashes; a top-level key holds for every job,
// a [[job]] table's for that job:
//
//   strategy = "flood"               # every job's
//   on-parent-failure = "cancel"
//   [[job]]
//   name = "prep"
//   np = 4
//   walltime = "1h"
//   output-size = "20GB"
//   [[job]]
//   name = "simulate"
//   np = 64
//   walltime = "6h"
//   after = ["prep"]                 # a job of this file by name, or any job by id
//
// Each job becomes the grid_submit_request `arb submit` would make of those options, so the two
// read every value the same way.
#include <algorithm>
#include <string_view>
#include <vector>

#include "arbroker/config/toml_fields.hpp"
#include "cli.hpp"

namespace arbroker::cli {
namespace {

constexpr std::string_view text_keys[] = {"name", "command",  "walltime",         "strategy",
                                          "rank", "min-gain", "output-size",      "mem-per-cpu",
                                          "mem",  "os",       "on-parent-failure"};
constexpr std::string_view int_keys[] = {"width", "max-migrations", "max-resubmits",
                                         "retry-on-failure"};
constexpr std::string_view number_keys[] = {"pp-ref", "penalty"};
constexpr std::string_view flag_keys[] = {"fallback-flood", "finish-eq7", "locality"};
constexpr std::string_view list_keys[] = {"after", "cluster", "feature", "benchmark", "input"};

std::vector<std::string_view> known_keys(bool top) {
  std::vector<std::string_view> out{"np"};
  out.insert(out.end(), std::begin(text_keys), std::end(text_keys));
  out.insert(out.end(), std::begin(list_keys), std::end(list_keys));
  out.insert(out.end(), std::begin(int_keys), std::end(int_keys));
  out.insert(out.end(), std::begin(number_keys), std::end(number_keys));
  out.insert(out.end(), std::begin(flag_keys), std::end(flag_keys));
  if (top) out.push_back("job");
  return out;
}

std::string* text_field(options& o, std::string_view key) {
  if (key == "name") return &o.name;
  if (key == "command") return &o.job_command;
  if (key == "walltime") return &o.walltime;
  if (key == "strategy") return &o.strategy;
  if (key == "rank") return &o.rank;
  if (key == "min-gain") return &o.min_gain;
  if (key == "output-size") return &o.output_size;
  if (key == "mem-per-cpu") return &o.mem_per_cpu;
  if (key == "mem") return &o.mem;
  if (key == "os") return &o.os;
  return &o.on_parent_failure;
}

int* int_field(options& o, std::string_view key) {
  if (key == "width") return &o.width;
  if (key == "max-migrations") return &o.max_migrations;
  if (key == "max-resubmits") return &o.max_resubmits;
  return &o.retry_on_failure;
}

std::vector<std::string>* list_field(options& o, std::string_view key) {
  if (key == "after") return &o.after;
  if (key == "cluster") return &o.clusters;
  if (key == "feature") return &o.features;
  if (key == "benchmark") return &o.benchmarks;
  return &o.inputs;
}

// The keys of table `t` (at `path`) into `o`: a walltime or size may be a string ("2h", "4G")
// or an integer (seconds, bytes, MiB), as on the command line.
status apply(const toml::table& t, const std::string& path, bool top, options& o) {
  if (auto ok = config::only_known_keys(t, path, known_keys(top)); !ok) return ok;
  auto key_path = [&](std::string_view k) {
    return path.empty() ? std::string(k) : path + "." + std::string(k);
  };
  for (auto [k, node] : t) {
    const std::string_view key = k.str();
    const config::field f{toml::node_view<const toml::node>(node), key_path(key)};
    if (key == "job") continue;
    if (key == "np" ||
        std::find(std::begin(text_keys), std::end(text_keys), key) != std::end(text_keys)) {
      std::string value;
      if (auto n = node.value<std::int64_t>(); n && !node.is_boolean())
        value = std::to_string(*n);
      else if (auto s = config::text(f))
        value = *s;
      else
        return s.err();
      if (key == "np")
        o.np = value;
      else
        *text_field(o, key) = value;
    } else if (std::find(std::begin(int_keys), std::end(int_keys), key) != std::end(int_keys)) {
      auto n = config::integer(f);
      if (!n) return n.err();
      *int_field(o, key) = *n;
    } else if (std::find(std::begin(number_keys), std::end(number_keys), key) !=
               std::end(number_keys)) {
      auto n = config::number(f);
      if (!n) return n.err();
      (key == "pp-ref" ? o.pp_ref : o.penalty) = *n;
    } else if (std::find(std::begin(flag_keys), std::end(flag_keys), key) != std::end(flag_keys)) {
      auto b = config::boolean(f);
      if (!b) return b.err();
      if (key == "fallback-flood") o.fallback_flood = *b;
      if (key == "finish-eq7") o.finish_eq7 = *b;
      if (key == "locality") o.no_locality = !*b;
    } else {  // a list of strings
      const auto* a = node.as_array();
      if (!a) return config::bad(f.path, "expected an array of strings");
      auto& out = *list_field(o, key);
      out.clear();
      for (std::size_t i = 0; i < a->size(); ++i) {
        const auto* s = (*a)[i].as_string();
        if (!s) return config::bad(f.path + "[" + std::to_string(i) + "]", "expected a string");
        out.push_back(s->get());
      }
    }
  }
  return {};
}

}  // namespace

result<msg::grid_submit_many_request> read_job_file(const options& base, const std::string& path) {
  auto root = config::parse_file(path);
  if (!root) return root.err();
  auto at_file = [&](const error& e) { return error{e.code, path + ": " + e.message}; };
  options every = base;
  if (auto ok = apply(*root, "", true, every); !ok) return at_file(ok.err());
  const auto* jobs = root->get_as<toml::array>("job");
  if (!jobs || jobs->empty())
    return at_file(config::bad("job", "no [[job]] table: the file names no job"));
  msg::grid_submit_many_request r;
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const auto where = "job[" + std::to_string(i) + "]";
    const auto* t = (*jobs)[i].as_table();
    if (!t) return at_file(config::bad(where, "expected a table ([[job]])"));
    options o = every;
    if (auto ok = apply(*t, where, false, o); !ok) return at_file(ok.err());
    if (o.np.empty()) return at_file(config::bad(where + ".np", "required"));
    auto job = grid_submit_request_of(o);
    if (!job) return at_file({job.err().code, where + " (" + o.name + "): " + job.err().message});
    r.user = job->user;  // (the same for every job: --for, or the caller)
    job->user.clear();   // the request's
    r.jobs.push_back(std::move(*job));
  }
  return r;
}

}  // namespace arbroker::cli
