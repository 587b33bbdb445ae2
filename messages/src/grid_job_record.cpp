#include "arbroker/messages/grid_job_record.hpp"

#include <algorithm>
#include <optional>

#include "arbroker/messages/msgpack_codec.hpp"

namespace arbroker::msg {
namespace {

// The codec carries no optionals: -1 stands for "none" (times and indices are never negative).
std::int64_t or_none(const std::optional<timestamp>& t) {
  return t ? *t : -1;
}
std::optional<timestamp> none_or(std::int64_t v) {
  return v < 0 ? std::nullopt : std::optional<timestamp>(v);
}
std::int64_t index_or_none(const std::optional<std::size_t>& i) {
  return i ? static_cast<std::int64_t>(*i) : -1;
}
std::optional<std::size_t> index_of(std::int64_t v) {
  return v < 0 ? std::nullopt : std::optional<std::size_t>(static_cast<std::size_t>(v));
}

struct copy_fields {
  grid_copy_info info;
  bool cancel_sent = false;
  bool unconfirmed = false;          // since format 3
  std::string reservation;           // since format 6
  std::int64_t reserved_start = -1;  // since format 6
};
template <class Inspector>
auto inspect(Inspector& f, copy_fields& x) {
  return f(x.info, x.cancel_sent, x.unconfirmed, x.reservation, x.reserved_start);
}

struct record_fields {
  grid_submit_request request;
  grid_job_info job;
  std::vector<copy_fields> copies;
  std::int64_t migrating_from = -1;
  std::int64_t pending_gain = 0;
  std::int32_t width = 3;
  std::int64_t min_gain = 0;
  std::int32_t max_migrations = -1;
  std::string command;
  bool reservation_to_release = false;  // since format 2
  bool to_place = false;                // since format 3
  std::int64_t round_start = 0;         // since format 3
  std::vector<std::string> releasing;   // since format 6
};
template <class Inspector>
auto inspect(Inspector& f, record_fields& x) {
  return f(x.request, x.job, x.copies, x.migrating_from, x.pending_gain, x.width, x.min_gain,
           x.max_migrations, x.command, x.reservation_to_release, x.to_place, x.round_start,
           x.releasing);
}

// The stored form: [format, record_fields]. Fields are only ever appended to the record and
// to the structs in it, and a record of an older format decodes with the newer fields at
// their defaults. Format 1 (up to 0.1.0 at 77220f1) was record_fields alone, unnumbered.
struct stored_record {
  std::uint32_t format = record_format;
  record_fields fields;
};
template <class Inspector>
auto inspect(Inspector& f, stored_record& x) {
  return f(x.format, x.fields);
}

// Format 1 begins with the request (an array); later ones with their number.
bool numbered(std::string_view bytes) {
  try {
    auto oh = msgpack::unpack(bytes.data(), bytes.size());
    const auto& o = oh.get();
    return o.type == msgpack::type::ARRAY && o.via.array.size > 0 &&
           o.via.array.ptr[0].type == msgpack::type::POSITIVE_INTEGER;
  } catch (const std::exception&) {
    return false;  // decode says what is wrong
  }
}

}  // namespace

std::string encode_record(const grid_job_record& r) {
  record_fields f;
  f.request = r.request;
  f.job = info_of(r.job);
  f.job.copies.clear();  // kept below with what info_of leaves out
  for (std::size_t i = 0; i < r.job.copies.size(); ++i) {
    const auto& c = r.job.copies[i];
    f.copies.push_back({{c.cluster, c.lrms_id, c.state, c.submitted, or_none(c.started),
                         or_none(c.ended), c.reason, c.lost},
                        c.cancel_sent,
                        c.unconfirmed,
                        c.reservation,
                        or_none(c.reserved_start)});
  }
  f.migrating_from = index_or_none(r.job.migrating_from);
  f.pending_gain = r.job.pending_gain;
  f.width = r.job.spec.width;
  f.min_gain = r.job.spec.min_gain;
  f.max_migrations = r.job.spec.max_migrations;
  f.command = r.job.spec.command;
  f.reservation_to_release = r.job.reservation_to_release;
  f.to_place = r.job.to_place;
  f.round_start = static_cast<std::int64_t>(r.job.round_start);
  f.releasing = r.job.releasing;
  return encode(stored_record{record_format, std::move(f)});
}

result<grid_job_record> decode_record(std::string_view bytes) {
  result<record_fields> f = record_fields{};
  if (numbered(bytes)) {
    auto stored = decode<stored_record>(bytes, missing_fields::keep_defaults);
    if (!stored) return fail(errc::storage_failure, "grid job record: " + stored.err().message);
    if (stored->format > record_format)
      return fail(errc::storage_failure,
                  "grid job record of format " + std::to_string(stored->format) +
                      ", written by a newer arbroker (this build reads formats 1 to " +
                      std::to_string(record_format) + ")");
    f = std::move(stored->fields);
  } else {
    f = decode<record_fields>(bytes, missing_fields::keep_defaults);  // format 1
  }
  if (!f) return fail(errc::storage_failure, "grid job record: " + f.err().message);
  grid_job_record r;
  r.request = std::move(f->request);
  auto& j = r.job;
  const auto& i = f->job;
  j.id = i.id;
  j.owner = i.owner;
  j.spec = {i.name,
            f->command,
            i.np,
            i.walltime,
            i.strategy,
            f->width,
            f->min_gain,
            f->max_migrations,
            i.max_resubmits,
            i.retry_on_failure,
            {i.mem_per_cpu, i.mem_per_node, i.features, i.os}};
  j.state = i.state;
  j.submitted = i.submitted;
  j.started = none_or(i.started);
  j.ended = none_or(i.ended);
  for (const auto& c : f->copies)
    j.copies.push_back({c.info.cluster, c.info.lrms_id, c.info.state, c.info.submitted,
                        none_or(c.info.started), none_or(c.info.ended), c.cancel_sent,
                        c.info.reason, c.info.lost, c.unconfirmed, c.reservation,
                        none_or(c.reserved_start)});
  j.winner = index_of(i.winner);
  j.migrating_from = index_of(f->migrating_from);
  j.pending_gain = f->pending_gain;
  j.migrations = i.migrations;
  j.duplicate_starts = i.duplicate_starts;
  j.migration_gain = i.migration_gain;
  j.reservation = i.reservation;
  j.reservation_to_release = f->reservation_to_release;
  j.resubmits = i.resubmits;
  j.retries = i.retries;
  j.to_place = f->to_place;
  j.round_start = static_cast<std::size_t>(std::max<std::int64_t>(f->round_start, 0));
  j.releasing = std::move(f->releasing);
  for (const auto& e : i.history)
    j.history.push_back({e.at, e.copy, e.what});
  const auto n = j.copies.size();
  if ((j.winner && *j.winner >= n) || (j.migrating_from && *j.migrating_from >= n) ||
      j.round_start > n)
    return fail(errc::storage_failure, "grid job record " + j.id + ": copy index out of range");
  return r;
}

}  // namespace arbroker::msg
