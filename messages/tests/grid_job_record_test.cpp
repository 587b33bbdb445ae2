#include "arbroker/messages/grid_job_record.hpp"

#include <gtest/gtest.h>

#include "arbroker/messages/msgpack_codec.hpp"

namespace arbroker::msg {
namespace {

TEST(GridJobRecord, RoundTripsEveryFieldTheRulesNeed) {
  grid_job_record r;
  r.request.user = "alice";
  r.request.np = 4;
  r.request.walltime = 600;
  r.request.benchmarks = {{"linpack", 10.5, 300}};
  r.request.inputs = {{"gsiftp://x/in", 1 << 20}};
  auto& j = r.job;
  j.id = "n/g7";
  j.owner = "alice";
  j.spec = {"sim", "run.sh", 4, 600, grid_strategy::adaptive, 1, 300, 2};
  j.spec.needs = {2048, 0, {"ib", "avx512"}, "linux"};  // format 4
  r.request.mem_per_cpu = 2048;
  r.request.features = {"ib", "avx512"};
  r.request.os = "linux";
  j.submitted = 100;
  j.reservation = "a/3";
  j.add_copy("a", 100, "best");
  (void)j.on_submitted(0, std::string("a.1"), 101);
  const auto n = j.migrate("b", 50, 160);
  (void)j.on_submitted(n, std::string("b.9"), 161);  // withdraw of copy 0 on the way
  ASSERT_TRUE(j.migrating_from);
  ASSERT_TRUE(j.copies[0].cancel_sent);

  auto back = decode_record(encode_record(r));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->request, r.request);
  EXPECT_EQ(back->job, r.job);
}

// A job placed again after a lost copy (format 3): the copy's loss, the budget used, and that
// a placement is still owed survive a restart.
TEST(GridJobRecord, RoundTripsAResubmission) {
  grid_job_record r;
  r.request.user = "alice";
  r.request.max_resubmits = 2;
  r.request.retry_on_failure = 1;
  auto& j = r.job;
  j.id = "n/g8";
  j.owner = "alice";
  j.spec = {"sim", "run.sh", 1, 600, grid_strategy::single, 1, 0, -1, 2, 1};
  j.add_copy("a", 100, "best");
  (void)j.on_submitted(0, std::string("a.1"), 101);
  (void)j.on_lost(0, "a could not be asked for 300 s", 500, true);
  ASSERT_TRUE(j.to_place);
  ASSERT_TRUE(j.copies[0].unconfirmed);
  auto back = decode_record(encode_record(r));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->request, r.request);
  EXPECT_EQ(back->job, r.job);
  EXPECT_EQ(back->job.resubmits, 1);
  EXPECT_EQ(back->job.round_start, 1u);
}

// A reserve job in the middle of a move (format 6): each copy's reservation and its start,
// and the reservations to let go, survive a restart.
TEST(GridJobRecord, RoundTripsAReservationMove) {
  grid_job_record r;
  r.request.user = "alice";
  r.request.strategy = grid_strategy::reserve;
  auto& j = r.job;
  j.id = "n/g9";
  j.owner = "alice";
  j.spec = {"sim", "run.sh", 2, 600, grid_strategy::reserve, 2, 0, -1};
  j.reservation = "a/r1";
  const auto i = j.add_copy("a", 100, "runs in reservation a/r1");
  j.copies[i].reservation = "a/r1";
  j.copies[i].reserved_start = 900;
  (void)j.on_submitted(i, std::string("a.1"), 101);
  j.releasing = {"b/r4"};
  const auto n = j.move_into("b", "b/r4", 300, 600, 160);
  ASSERT_TRUE(j.migrating_from);
  auto back = decode_record(encode_record(r));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->job, r.job);
  EXPECT_EQ(back->job.copies[n].reservation, "b/r4");
  EXPECT_EQ(back->job.copies[n].reserved_start, 300);
  EXPECT_EQ(back->job.releasing, std::vector<std::string>{"b/r4"});
}

grid_job_record sample() {
  grid_job_record r;
  r.request.user = "bob";
  r.request.name = "old";
  r.request.np = 2;
  r.request.walltime = 300;
  r.request.clusters = {"a", "b"};
  r.job.id = "n/g1";
  r.job.owner = "bob";
  r.job.spec = {"old", "true", 2, 300, grid_strategy::single, 1, 0, -1};
  r.job.submitted = 50;
  r.job.add_copy("a", 50, "best");
  return r;
}

msgpack::object_handle unpacked(const std::string& bytes) {
  return msgpack::unpack(bytes.data(), bytes.size());
}

// Packs `o`, an array, leaving out its last `drop` elements.
void pack_shorter(msgpack::packer<msgpack::sbuffer>& pk, const msgpack::object& o,
                  std::uint32_t drop) {
  pk.pack_array(o.via.array.size - drop);
  for (std::uint32_t i = 0; i + drop < o.via.array.size; ++i)
    pk.pack(o.via.array.ptr[i]);
}

// A record as 0.1.0 (77220f1) wrote it: the fields without a format number.
TEST(GridJobRecord, AFormatOneRecordStillDecodes) {
  const auto r = sample();
  auto v2 = encode_record(r);
  auto oh = unpacked(v2);
  ASSERT_EQ(oh.get().via.array.size, 2u);
  EXPECT_EQ(oh.get().via.array.ptr[0].as<std::uint32_t>(), record_format);
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack(oh.get().via.array.ptr[1]);
  auto back = decode_record(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->request, r.request);
  EXPECT_EQ(back->job, r.job);
}

// Fields appended to the request since a record was written keep their defaults (a strict
// decode refused the record, and a node with active grid jobs did not start).
TEST(GridJobRecord, FieldsAddedSinceTheRecordKeepTheirDefaults) {
  auto r = sample();
  r.request.ranking = grid_ranking::sed;  // added in format 2
  r.request.max_resubmits = 3;            // the last three, in format 3
  r.request.retry_on_failure = 1;
  r.request.fallback_flood = true;
  r.request.pp_ref = 2.5;
  r.request.mem_per_node = 4096;  // and the needs, in format 4
  r.request.features = {"ib"};
  r.request.cancel_if_parent_fails = true;  // and these two, in format 5
  r.request.locality = false;
  r.job.spec.needs = {0, 4096, {"ib"}, ""};
  auto oh = unpacked(encode_record(r));
  const auto& fields = oh.get().via.array.ptr[1];
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(2);
  pk.pack(record_format);
  pk.pack_array(fields.via.array.size);
  pack_shorter(pk, fields.via.array.ptr[0], 12);  // the request, as format 1 wrote it
  pack_shorter(pk, fields.via.array.ptr[1], 4);   // the job, as format 3 wrote it
  for (std::uint32_t i = 2; i < fields.via.array.size; ++i)
    pk.pack(fields.via.array.ptr[i]);
  auto back = decode_record(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->request.ranking, grid_submit_request{}.ranking);
  EXPECT_EQ(back->request.max_resubmits, grid_submit_request{}.max_resubmits);
  EXPECT_EQ(back->request.retry_on_failure, 0);
  EXPECT_FALSE(back->request.fallback_flood);
  EXPECT_EQ(back->request.pp_ref, 0);
  EXPECT_EQ(back->request.mem_per_node, 0);
  EXPECT_TRUE(back->request.features.empty());
  EXPECT_FALSE(back->request.cancel_if_parent_fails);
  EXPECT_TRUE(back->request.locality);
  EXPECT_EQ(back->request.clusters, r.request.clusters);
  EXPECT_EQ(back->job.spec.needs, job_requirements{});
  r.job.spec.needs = {};
  EXPECT_EQ(back->job, r.job);
  // Messages stay strict: a peer of this protocol sends every field.
  msgpack::sbuffer req;
  msgpack::packer<msgpack::sbuffer> rpk(&req);
  pack_shorter(rpk, fields.via.array.ptr[0], 1);
  EXPECT_FALSE(decode<grid_submit_request>(std::string_view(req.data(), req.size())));
}

// A record of format 5 (before reservation moves): copies without their reservation, no
// reservations to let go.
TEST(GridJobRecord, AFormatFiveRecordDecodesWithoutMoves) {
  const auto r = sample();
  auto oh = unpacked(encode_record(r));
  const auto& fields = oh.get().via.array.ptr[1];
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(2);
  pk.pack(5);
  pk.pack_array(fields.via.array.size - 1);  // without `releasing`
  for (std::uint32_t i = 0; i + 1 < fields.via.array.size; ++i) {
    if (i != 2) {
      pk.pack(fields.via.array.ptr[i]);
      continue;
    }
    const auto& copies = fields.via.array.ptr[2];
    pk.pack_array(copies.via.array.size);
    for (std::uint32_t c = 0; c < copies.via.array.size; ++c)
      pack_shorter(pk, copies.via.array.ptr[c], 2);  // without reservation, reserved_start
  }
  auto back = decode_record(std::string_view(buf.data(), buf.size()));
  ASSERT_TRUE(back) << back.err().message;
  EXPECT_EQ(back->job, r.job);
  EXPECT_TRUE(back->job.copies[0].reservation.empty());
  EXPECT_FALSE(back->job.copies[0].reserved_start);
}

TEST(GridJobRecord, ARecordOfANewerFormatIsRefusedSayingSo) {
  auto oh = unpacked(encode_record(sample()));
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  pk.pack_array(2);
  pk.pack(record_format + 1);
  pk.pack(oh.get().via.array.ptr[1]);
  auto back = decode_record(std::string_view(buf.data(), buf.size()));
  ASSERT_FALSE(back);
  EXPECT_EQ(back.err().code, errc::storage_failure);
  EXPECT_NE(back.err().message.find("written by a newer arbroker"), std::string::npos)
      << back.err().message;
}

TEST(GridJobRecord, GarbageIsAStorageFailure) {
  auto bad = decode_record("not msgpack at all");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.err().code, errc::storage_failure);
}

}  // namespace
}  // namespace arbroker::msg
