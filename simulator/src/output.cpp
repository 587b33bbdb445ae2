#include "arbroker/simulator/output.hpp"

#include <ostream>
#include <string>

namespace arbroker::sim {
namespace {

// Error messages may hold commas or quotes: quote them CSV-style.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += (ch == '\n' ? ' ' : ch);
  }
  return q + '"';
}

}  // namespace

void write_jobs_csv(std::ostream& out, const sim_output& run) {
  out << "id,cluster,submit,start,end,np,wait\n";
  for (const auto& j : run.jobs)
    out << j.id << ',' << j.cluster << ',' << j.submit << ',' << j.start << ',' << j.end << ','
        << j.np << ',' << j.wait() << '\n';
}

void write_requests_csv(std::ostream& out, const sim_output& run) {
  out << "id,submit,ok,cluster,start,end,np,candidates,above_threshold,rejected_by_service,"
         "rejected_by_lrms,error\n";
  for (const auto& r : run.requests) {
    const auto& res = r.reply.reservation;
    const auto& st = r.reply.stats;
    out << r.id << ',' << r.submit << ',' << (r.ok() ? 1 : 0) << ',' << r.cluster << ','
        << (r.ok() ? res.start : -1) << ',' << (r.ok() ? res.end : -1) << ','
        << (r.ok() ? res.np : 0) << ',' << st.candidates << ',' << st.above_threshold << ','
        << st.rejected_by_service << ',' << st.rejected_by_lrms << ','
        << (r.ok() ? std::string() : quoted(r.reply.error.message)) << '\n';
  }
}

}  // namespace arbroker::sim
