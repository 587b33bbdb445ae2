#include "wire_docs.hpp"

#include <algorithm>
#include <array>

#include "arbroker/api/http_server.hpp"
#include "arbroker/api/validate.hpp"
#include "arbroker/core/grid_job.hpp"
#include "arbroker/core/job_requirements.hpp"

namespace arbroker::api::detail {
namespace {

struct entry {
  std::string_view key;  ///< "structure.field", or ".field" for every struct that has one
  field_doc doc;
};

constexpr double max_np = bounds::max_np;
constexpr double max_time = static_cast<double>(bounds::max_time);
constexpr double max_span = static_cast<double>(bounds::max_span);
constexpr double max_bytes = static_cast<double>(bounds::max_bytes);
constexpr double max_mib = static_cast<double>(max_memory_mib);
constexpr double placements = max_grid_placements;

// A time a request names: seconds since 1970 (UTC), at most bounds::max_time.
constexpr field_doc time_doc(std::string_view text, bool required = false) {
  return {text, "Unix s", 0.0, max_time, 0, 0, required};
}
// A duration a request names: 1 s .. bounds::max_span.
constexpr field_doc duration_doc(std::string_view text, bool required = false) {
  return {text, "s", 1.0, max_span, 0, 0, required};
}
constexpr field_doc np_doc(std::string_view text, bool required = false) {
  return {text, "CPUs", 1.0, max_np, 0, 0, required};
}
// A list of names (clusters, features, kinds): at most bounds::max_list of 1..max_name.
constexpr field_doc names_doc(std::string_view text) {
  return {text, {}, {}, {}, bounds::max_name, bounds::max_list, false};
}
constexpr field_doc text_doc(std::string_view text, std::size_t max_length, bool required = false) {
  return {text, {}, {}, {}, max_length, 0, required};
}
constexpr field_doc plain(std::string_view text, std::string_view unit = {}) {
  return {text, unit, {}, {}, 0, 0, false};
}

// Sorted by key by the lookup's first call; the order here follows the reference.
constexpr auto entries = std::to_array<entry>({
    // Fields of many structs, by name.
    {".user", text_doc("The user the request acts for; empty: the caller. Only an admin may name "
                       "another user (an admin's empty user in a list: every user's).",
                       bounds::max_name)},
    {".error", plain("The outcome: code 0 for success; always equal to the response's code "
                     "and message, which clients should read instead.")},
    {".reservation_id",
     text_doc("A reservation's id as the node gave it (`<cluster>/<n>`).", bounds::max_id, true)},
    {".clusters", names_doc("Only these clusters, by name; empty: every cluster.")},
    {".features", names_doc("Node features every node it uses must have (Slurm --constraint, "
                            "Grid Engine -l).")},
    {".os", text_doc("The operating system the cluster must run; empty: any.", bounds::max_name)},
    {".mem_per_cpu",
     {"Memory per CPU its nodes must give; 0: none. At most one of "
      "mem_per_cpu and mem_per_node is non-zero.",
      "MiB", 0.0, max_mib, 0, 0, false}},
    {".mem_per_node",
     {"Memory per node its nodes must have; 0: none.", "MiB", 0.0, max_mib, 0, 0, false}},
    {".local_jobs_preferred",
     plain("Local jobs preferred (paper 001): the reservation must not delay the cluster's "
           "queued local jobs. A cluster that enforces it lets only an admin set false.")},
    {".admin", plain("Set by the node from the caller (a client's value is ignored): whether an "
                     "admin asks, who may waive local_jobs_preferred where a site enforces it.")},
    {".account", text_doc("The account the LRMS charges (Slurm Accounts=, Grid Engine -A); "
                          "empty: the owner's default. Letters, digits, _, -, .",
                          bounds::max_name)},
    {".history", plain("Also a page of finished ones, most recently finished first.")},
    {".limit", {"Finished ones per page; 0: 100.", {}, 0.0, bounds::max_history_page, 0, 0, false}},
    {".before", plain("The `next` of the previous page; empty: from the most recent.")},
    {".next", plain("Where the next page of history starts (send it as `before`); empty: no "
                    "more.")},
    {".tsn_max",
     {"Start times tried per shape (paper 000, tsn_max).", {}, 1.0, bounds::max_tsn, 0, 0, false}},
    {".tss_gap", duration_doc("Spacing of the start times tried (paper 000, tss_gap).")},
    {".esr", plain("The estimator of the success rate (paper 000, Sec. 3.2.3).")},
    {".esr_threshold",
     {"Only candidates whose estimated success rate reaches it; negative: the node's default.",
      {},
      {},
      1.0,
      0,
      0,
      false}},
    {".prefer",
     {"Preferences, most important first (default: a request's end then cost; a "
      "co-reservation's start).",
      {},
      {},
      {},
      0,
      7,
      false}},
    {".pp_ref",
     {"The processor power dur_ref holds for (as clusters publish pp); 0: the power "
      "of the cluster it runs on (no scaling).",
      "pp", 0.0, 1e12, 0, 0, false}},
    {".np_ref", {"The CPU count dur_ref holds for; 0: np_min.", "CPUs", 0.0, max_np, 0, 0, false}},
    {".np_min", np_doc("The fewest CPUs the job can use.")},
    {".np_max", np_doc("The most CPUs the job can use (at least np_min).")},
    {".dur_ref", duration_doc("The run time on np_ref CPUs of power pp_ref; each cluster's is "
                              "adapted from it by the speedup model (paper 000, eq. 5).",
                              true)},
    {".speedup", plain("How the run time scales with the CPUs (paper 000, Sec. 3.1).")},
    {".benchmarks",
     {"Paper 003's benchmark triples: the run time from them instead of pp_ref "
      "scaling (the largest estimate is reserved); a cluster publishing none of "
      "them is skipped.",
      {},
      {},
      {},
      0,
      bounds::max_benchmarks,
      false}},
    {".penalty",
     {"Paper 003's c, applied for a benchmark a cluster does not publish.",
      {},
      1.0,
      1000.0,
      0,
      0,
      false}},
    {".inputs",
     {"Files to stage in before it starts (paper 003, Sec. 3.2).",
      {},
      {},
      {},
      0,
      bounds::max_files,
      false}},
    {".output_bytes",
     {"Bytes of output to stage out; -1: unknown.", "bytes", -1.0, max_bytes, 0, 0, false}},
    {".command", text_doc("The command the LRMS runs (no NUL).", bounds::max_text)},
    {".walltime", duration_doc("The job's time limit.", true)},
    {".start", plain("When it starts (planned, or as it started).", "Unix s")},
    {".end", plain("When it ends.", "Unix s")},
    {".np", plain("CPUs.", "CPUs")},
    {".cost", plain("The cost of its terms under the cluster's cost model.")},
    {".cluster", plain("A cluster's name.")},
    {".owner", plain("The user it belongs to.")},
    {".name", plain("A name.")},
    {".state", plain("Its state.")},
    {".id", plain("Its id.")},
    {".started", plain("When it started; -1: not yet.", "Unix s")},
    {".ended", plain("When it ended; -1: not yet.", "Unix s")},
    {".submitted", plain("When it was submitted.", "Unix s")},

    // Envelopes.
    {"hello.magic", plain("0x41524231 (\"ARB1\").")},
    {"hello.version",
     plain("The protocol version the client speaks: the server's or one of the two before it "
           "(docs/compatibility.md); another is refused, naming those it serves.")},
    {"hello.user", plain("The user name.")},
    {"hello.token", plain("The user's secret token.")},
    {"welcome.version",
     plain("The protocol version the session speaks: the hello's, when the server serves it.")},
    {"welcome.node", plain("The node's name.")},
    {"welcome.error", plain("Code 0: accepted; else why not (then the server closes).")},
    {"welcome.leader",
     plain("Refused with not_leader (21) by a standby: the API address (host:port) of the node "
           "that serves its store; \"\" when no node serves now or the refusal is another. "
           "Version 20 on: a client of 19 gets a welcome without it, refused with unreachable "
           "(13), the leader named in the message.")},
    {"wire_error.code", plain("0: success; else an error code (Error codes).")},
    {"wire_error.message", plain("For people; names the field a refusal is about.")},

    // elastic
    {"elastic_request.est",
     time_doc("Earliest start of the window; 0: now, the time the request arrives.")},
    {"elastic_request.let", time_doc("Latest end of the window (after est, at most 10 years "
                                     "after).",
                                     true)},
    {"elastic_request.policy",
     text_doc("A matchmaking policy instead of preferences (mli, minu, maxu, sed, ttd, ...); "
              "empty: none.",
              bounds::max_name)},
    {"elastic_request.mode", plain("What to do with the best candidate.")},
    {"elastic_request.hold_seconds",
     {"Mode hold: how long the hold lasts; 0: the node's [broker] hold. Only with mode hold.", "s",
      0.0, static_cast<double>(bounds::max_hold), 0, 0, false}},
    {"elastic_request.os",
     text_doc("The operating system the cluster must run; empty: any.", bounds::max_name)},
    {"elastic_request.movable",
     plain("Paper 002's deadline form: it runs for its duration somewhere in [est, let], and a "
           "cluster with laxity may move it there until it starts.")},
    {"speedup_spec.kind", plain("The model.")},
    {"speedup_spec.p1", plain("amdahl: the serial fraction in [0, 1]; downey: A >= 1.")},
    {"speedup_spec.p2", plain("downey: sigma >= 0.")},
    {"speedup_spec.table_n",
     {"table: CPU counts, increasing.", "CPUs", {}, {}, 0, bounds::max_speedup_points, false}},
    {"speedup_spec.table_speedup",
     {"table: the speedup at each count of table_n.",
      {},
      {},
      {},
      0,
      bounds::max_speedup_points,
      false}},
    {"objective.attribute", plain("What to optimise.")},
    {"objective.descending", plain("Larger is better (\"-esr\").")},
    {"benchmark_triple.name",
     text_doc("The benchmark, as clusters publish it.", bounds::max_name, true)},
    {"benchmark_triple.result", {"A system's result in it.", {}, 0.0, {}, 0, 0, true}},
    {"benchmark_triple.seconds", duration_doc("The run time on np_ref CPUs of a system with that "
                                              "result.",
                                              true)},
    {"input_file.location",
     text_doc("Where it is; `cluster:NAME[/...]`: held at cluster NAME already (staged only to "
              "others).",
              bounds::max_text)},
    {"input_file.bytes", {"Its size.", "bytes", 0.0, max_bytes, 0, 0, false}},
    {"elastic_reply.reservation", plain("The reservation made (modes reserve and hold).")},
    {"elastic_reply.ranked", plain("Mode whatif: the candidates, best first.")},
    {"elastic_reply.earliest_alternative",
     plain("On a refusal: the earliest start seen on any cluster; -1: none.", "Unix s")},
    {"elastic_reply.stats", plain("How the request went.")},
    {"elastic_reply.passed_over",
     plain("Mode whatif: every cluster of the directory that offers no candidate, and why.")},
    {"reservation_info.id", plain("`<cluster>/<n>`.")},
    {"reservation_info.np", plain("The CPUs it holds.", "CPUs")},
    {"reservation_info.start", plain("Its start (where it is planned now, if movable).", "Unix s")},
    {"reservation_info.end", plain("Its end.", "Unix s")},
    {"reservation_info.expiry", plain("A hold's expiry; 0: none.", "Unix s")},
    {"reservation_info.admitted_after",
     plain("The local-jobs-preferred bound it was admitted against; 0: none.", "Unix s")},
    {"reservation_info.cost", plain("The cost of its terms under the cluster's cost model.")},
    {"reservation_info.account", plain("The account charged; empty: the owner's default.")},
    {"reservation_info.earliest", plain("A movable one: the earliest it may start.", "Unix s")},
    {"reservation_info.deadline",
     plain("A movable one: the latest it may end; 0: its terms are fixed.", "Unix s")},
    {"reservation_info.finished", plain("When it reached its terminal state; 0: live.", "Unix s")},
    {"reservation_info.created", plain("When its hold was granted; 0: not known.", "Unix s")},
    {"reservation_info.window_start",
     plain("The est its request asked for; 0: not known.", "Unix s")},
    {"reservation_info.window_end",
     plain("The let its request asked for; 0: not known.", "Unix s")},
    {"slot.cluster", plain("The cluster.")},
    {"slot.start", plain("Its start.", "Unix s")},
    {"slot.end", plain("Its end.", "Unix s")},
    {"slot.np", plain("CPUs.", "CPUs")},
    {"slot.cost", plain("Its cost (when flags has 1).")},
    {"slot.esr", plain("Its estimated success rate (when flags has 2).")},
    {"slot.flags", plain("Which of cost (1) and esr (2) are set.")},
    {"request_stats.clusters", plain("Clusters the directory offered.")},
    {"request_stats.candidates", plain("Time slots the probes generated.")},
    {"request_stats.above_threshold", plain("Candidates left after the esr threshold.")},
    {"request_stats.rejected_by_service", plain("Holds the clusters' services refused.")},
    {"request_stats.rejected_by_lrms", plain("Holds the LRMSs refused.")},
    {"cluster_note.cluster", plain("The cluster passed over.")},
    {"cluster_note.error", plain("Why: infeasible (it lacks what the request asks for), busy (no "
                                 "free slot in the window), or the cluster's own error.")},

    // coreserve
    {"coreservation_request.est",
     time_doc("Earliest common start; 0: now, the time the request arrives.")},
    {"coreservation_request.let", time_doc("Latest end of every part.", true)},
    {"coreservation_request.components",
     {"The parts, each on its own cluster where possible.",
      {},
      {},
      {},
      0,
      msg::max_coreservation_components,
      true}},
    {"coreservation_request.max_attempts",
     {"Common slots to try before giving up.", {}, 1.0, bounds::max_attempts, 0, 0, false}},
    {"coreservation_request.account", text_doc("The account charged for every part; empty: the "
                                               "owner's default.",
                                               bounds::max_name)},
    {"coreservation_component.offset",
     {"It starts this long after the common start.", "s", 0.0, max_span, 0, 0, false}},
    {"coreservation_component.clusters", names_doc("Its allowed clusters; empty: any.")},
    {"coreservation_reply.txn", plain("The two-phase commit's transaction.")},
    {"coreservation_reply.parts", plain("One reservation per component, in request order.")},
    {"coreservation_reply.attempts", plain("Common slots tried.")},
    {"coreservation_reply.earliest_alternative",
     plain("On a refusal: the earliest common start seen; -1: none.", "Unix s")},

    // estimate
    {"estimate_request.np", np_doc("CPUs the job needs.")},
    {"estimate_request.ready", time_doc("Not before (when its input is there); 0: now.")},
    {"estimate_request.deadline", time_doc("Ending by; 0: none.")},
    {"estimate_reply.estimates", plain("Per cluster, earliest first.")},
    {"cluster_estimate.earliest_start",
     plain("The earliest start there; -1: it cannot run there (error says why).", "Unix s")},
    {"cluster_estimate.error", plain("Why it cannot run there (code 0: it can).")},

    // commit, modify, query, list, bind_job
    {"commit_request.jobs",
     {"Jobs to bind with the commit, all or none.", {}, {}, {}, 0, bounds::max_commit_jobs, false}},
    {"job_terms.name", text_doc("The job's name in the LRMS.", bounds::max_id)},
    {"job_terms.np", np_doc("CPUs.", true)},
    {"query_reply.info", plain("The reservation.")},
    {"query_reply.jobs",
     plain("The LRMS ids of the jobs a commit bound, in request order; a query's: every job "
           "bound to it.")},
    {"modify_request.start", time_doc("The new start.", true)},
    {"modify_request.end", time_doc("The new end (after start).", true)},
    {"modify_request.np", np_doc("The new CPU count.", true)},
    {"list_reply.reservations", plain("Live ones, then (history) a page of finished ones.")},
    {"bind_job_request.name", text_doc("The job's name in the LRMS.", bounds::max_id)},
    {"bind_job_request.np", np_doc("CPUs.", true)},
    {"bind_job_reply.job_id", plain("The job's LRMS id.")},

    // clusters, status
    {"cluster_list_reply.clusters", plain("The clusters this node brokers.")},
    {"cluster_summary.name", plain("The cluster's name.")},
    {"cluster_summary.lrms", plain("sim, slurm or gridengine.")},
    {"cluster_summary.cpus", plain("Its CPUs.", "CPUs")},
    {"cluster_summary.pp", plain("Its processor power (the unit of pp_ref).", "pp")},
    {"cluster_summary.os", plain("Its operating system.")},
    {"cluster_summary.features", plain("Features its nodes have.")},
    {"cluster_summary.max_walltime", plain("The longest walltime it allows; 0: not known.", "s")},
    {"cluster_summary.max_hold", plain("The longest hold it grants; 0: not published.", "s")},
    {"cluster_summary.nodes", plain("Its nodes grouped alike; empty: not published.")},
    {"node_group.count", plain("Nodes in the group.")},
    {"node_group.cpus", plain("CPUs per node.", "CPUs")},
    {"node_group.memory", plain("Memory per node; 0: not known.", "MiB")},
    {"node_group.features", plain("Features of every node of the group.")},
    {"status_request.clusters", names_doc("These clusters; empty: every cluster.")},
    {"status_reply.clusters", plain("Per cluster.")},
    {"cluster_status.now", plain("The cluster's clock.", "Unix s")},
    {"cluster_status.cpus", plain("Its CPUs.", "CPUs")},
    {"cluster_status.holds", plain("Holds not yet committed.")},
    {"cluster_status.committed", plain("Reservations committed or active.")},
    {"cluster_status.running_jobs", plain("Jobs running.")},
    {"cluster_status.queued_jobs", plain("Jobs queued.")},
    {"cluster_status.reservations",
     plain("Every live reservation: the caller's in full, others' as anonymous busy blocks (no "
           "id, owner, account, cost); an admin's: all in full.")},
    {"cluster_status.lrms_reservations", plain("The LRMS's own reservations (id: its name).")},
    {"cluster_status.lrms_running",
     plain("The LRMS's running jobs outside reservations (start: started, end: started + "
           "walltime); others' anonymous for a user.")},
    {"cluster_status.holds_created", plain("Holds granted since the service started.")},
    {"cluster_status.commits", plain("Holds committed since the service started.")},
    {"cluster_status.aborts", plain("Holds released by an abort.")},
    {"cluster_status.expiries", plain("Holds that expired.")},
    {"cluster_status.cancels", plain("Reservations cancelled or terminated by their owners.")},
    {"cluster_status.reserved_cpus", plain("CPUs of reservations active now.", "CPUs")},
    {"cluster_status.error", plain("The cluster's error, if it could not answer.")},
    {"cluster_status.lrms_queued",
     plain("The LRMS's queued jobs (the caller's; an admin's: all).")},
    {"cluster_status.lrms_running_bound", plain("The LRMS's jobs running inside reservations.")},
    {"cluster_status.undeleted",
     plain("Reservations released that the LRMS has not deleted yet (the node retries).")},
    {"cluster_status.moves", plain("Reservations moved within their windows (laxity).")},
    {"cluster_status.overruns", plain("Overrun quanta granted (paper 002, Sec. 5.3).")},
    {"cluster_status.overruns_refused", plain("Overruns that could not be granted.")},
    {"cluster_status.name_prefix",
     plain("This node's reservations in the LRMS are named this prefix and the id number.")},
    {"cluster_status.approximated",
     plain("Queued LRMS jobs the plan of the queue only approximates, and why.")},
    {"queued_job_note.job", plain("The LRMS id.")},
    {"queued_job_note.reason", plain("Why the plan only approximates it (held, bound to nodes, "
                                     "...).")},

    // grid jobs
    {"grid_submit_request.name", text_doc("The job's name.", bounds::max_id)},
    {"grid_submit_request.command", text_doc("The command the LRMS runs.", bounds::max_text)},
    {"grid_submit_request.np", np_doc("CPUs.")},
    {"grid_submit_request.walltime",
     {"Its time limit; 0 with benchmarks: from them (their maximum).", "s", 0.0, max_span, 0, 0,
      false}},
    {"grid_submit_request.strategy", plain("How it is placed.")},
    {"grid_submit_request.width",
     {"Copies of a flood; clusters a reserve job holds at.", {}, 1.0, max_grid_width, 0, 0, false}},
    {"grid_submit_request.min_gain",
     {"adaptive: the earlier delivery a move must promise; -1: the node's default.", "s", -1.0,
      max_span, 0, 0, false}},
    {"grid_submit_request.max_migrations",
     {"adaptive: moves at most; -1: unbounded; -2: the node's default.",
      {},
      -2.0,
      1000.0,
      0,
      0,
      false}},
    {"grid_submit_request.finish_by_eq7",
     plain("reserve: pick the earliest finish by paper 004's eq. 7 as printed (start + the "
           "site's TTD) instead of start + run time.")},
    {"grid_submit_request.ranking", plain("How its clusters are ranked for placement.")},
    {"grid_submit_request.max_resubmits",
     {"Placements again after an infrastructure failure; -1: the node's default.",
      {},
      -1.0,
      placements,
      0,
      0,
      false}},
    {"grid_submit_request.retry_on_failure",
     {"Placements again after its own failure (non-zero exit, walltime).",
      {},
      0.0,
      placements,
      0,
      0,
      false}},
    {"grid_submit_request.fallback_flood",
     plain("reserve: when no cluster grants a hold, run as a flood of width copies.")},
    {"grid_submit_request.pp_ref",
     {"The CPU power the walltime holds for (paper 004, eq. 1-3); 0: the walltime holds "
      "everywhere.",
      "pp", 0.0, 1e9, 0, 0, false}},
    {"grid_submit_request.after",
     {"Jobs it waits for: `ID` or `ID:ok` (completed), `ID:any` (ended); in grid_submit_many "
      "also a sibling's name.",
      {},
      {},
      {},
      0,
      max_grid_dependencies,
      false}},
    {"grid_submit_request.cancel_if_parent_fails",
     plain("A parent that ended otherwise than asked cancels it (else it fails).")},
    {"grid_submit_request.locality",
     plain("Prefer the clusters that hold its parents' outputs, by the time moving them "
           "takes.")},
    {"grid_job_info.id", plain("`<node>/g<n>`.")},
    {"grid_job_info.name", plain("The job's name.")},
    {"grid_job_info.strategy", plain("How it is placed.")},
    {"grid_job_info.np", plain("CPUs.", "CPUs")},
    {"grid_job_info.walltime", plain("Its time limit.", "s")},
    {"grid_job_info.winner", plain("The copy that ran; -1: none yet.")},
    {"grid_job_info.migrations", plain("Moves so far (adaptive).")},
    {"grid_job_info.duplicate_starts", plain("Copies that started after the winner (flood).")},
    {"grid_job_info.migration_gain", plain("Delivery time its moves gained.", "s")},
    {"grid_job_info.copies", plain("Its copies in the clusters' queues.")},
    {"grid_job_info.history", plain("What happened to it, in order.")},
    {"grid_job_info.reservation", plain("reserve: the reservation it runs in.")},
    {"grid_job_info.resubmits", plain("Placements again after infrastructure failures.")},
    {"grid_job_info.max_resubmits", plain("... of at most this many.")},
    {"grid_job_info.retries", plain("Placements again after its own failures.")},
    {"grid_job_info.retry_on_failure", plain("... of at most this many.")},
    {"grid_job_info.mem_per_cpu", plain("As submitted; 0: none.", "MiB")},
    {"grid_job_info.mem_per_node", plain("As submitted; 0: none.", "MiB")},
    {"grid_job_info.features", plain("As submitted.")},
    {"grid_job_info.os", plain("As submitted.")},
    {"grid_copy_info.lrms_id", plain("Its id in the cluster's LRMS.")},
    {"grid_copy_info.reason", plain("Why it ended or was cancelled.")},
    {"grid_copy_info.lost", plain("Ended by the infrastructure, not by the job.")},
    {"grid_event_info.at", plain("When.", "Unix s")},
    {"grid_event_info.copy", plain("The copy it concerns; -1: the job.")},
    {"grid_event_info.what", plain("What happened, in words.")},
    {"grid_job_reply.job", plain("The job.")},
    {"grid_query_request.id", text_doc("The grid job's id (`<node>/g<n>`).", bounds::max_id, true)},
    {"grid_cancel_request.id",
     text_doc("The grid job's id (`<node>/g<n>`).", bounds::max_id, true)},
    {"grid_list_request.state", plain("Only jobs in this state (a grid_job_state); empty: any.")},
    {"grid_list_request.cluster",
     text_doc("Only jobs with a copy at this cluster; empty: any.", bounds::max_name)},
    {"grid_list_reply.jobs", plain("Newest first.")},
    {"grid_submit_many_request.jobs",
     {"1 to 100 jobs, each named, names unique, no cycle; all are written or none.",
      {},
      {},
      {},
      0,
      bounds::max_request_jobs,
      true}},
    {"grid_submit_many_reply.jobs", plain("The jobs, in the request's order.")},

    // coallocate, bound jobs
    {"coallocate_request.parts",
     {"Every part of a co-reservation with its jobs.",
      {},
      {},
      {},
      0,
      bounds::max_coallocation_parts,
      true}},
    {"coallocation_part.jobs", {"Its jobs.", {}, {}, {}, 0, bounds::max_commit_jobs, true}},
    {"coallocate_reply.jobs", plain("The LRMS ids of the jobs, by part.")},
    {"bound_job_query_request.job_id", text_doc("The job's LRMS id.", bounds::max_id, true)},
    {"bound_job_cancel_request.job_id", text_doc("The job's LRMS id.", bounds::max_id, true)},
    {"bound_job_reply.job", plain("The job.")},
    {"bound_job_info.id", plain("The LRMS id.")},
    {"bound_job_info.reservation_id", plain("Its reservation.")},
    {"bound_job_info.name", plain("As the LRMS has it; empty once it has left the LRMS's lists.")},
    {"bound_job_info.walltime", plain("Its time limit.", "s")},
    {"bound_job_info.started", plain("When it started; -1: not running yet.", "Unix s")},

    // watch
    {"watch_request.since",
     {"After this event id (the last one seen); -1: from now on; 0: every event the node "
      "keeps.",
      {},
      -1.0,
      {},
      0,
      0,
      false}},
    {"watch_request.kinds", names_doc("Kinds or families (reservation, grid_job.migrated, ...); "
                                      "empty: every kind.")},
    {"watch_reply.events", plain("A page of events, in id order.")},
    {"watch_reply.last",
     plain("Every event up to this id was looked at for this watch: resume with since = last.")},
    {"watch_event.id", plain("Increasing; resume after the last one seen.")},
    {"watch_event.at", plain("When it was written.", "Unix s")},
    {"watch_event.kind", plain("reservation.created, .committed, .moved, .extended, .modified, "
                               ".ended; grid_job.submitted, .placed, .copied, .migrated, "
                               ".resubmitted, .started, .ended, .updated.")},
    {"watch_event.subject", plain("The reservation's or grid job's id.")},
    {"watch_event.state", plain("The subject's state after the change.")},
    {"watch_event.start",
     plain("The reservation's start (a grid job's: its start, 0 before).", "Unix s")},
    {"watch_event.end",
     plain("The reservation's end (a grid job's: its end, 0 before).", "Unix s")},
    {"watch_event.what", plain("What changed, in words.")},
});

struct value_doc {
  std::string_view enumeration, value, text;
};
constexpr auto value_docs = std::to_array<value_doc>({
    {"request_mode", "reserve", "reserve the best candidate and commit it"},
    {"request_mode", "hold", "hold it; the client commits (commit) or lets it expire"},
    {"request_mode", "whatif", "rank the candidates, reserve nothing"},
    {"esr_method", "static", "a cluster's fixed rate"},
    {"esr_method", "history", "from the cluster's past refusals"},
    {"esr_method", "load", "from the cluster's load in the window"},
    {"speedup_kind", "amdahl", "p1 = the serial fraction"},
    {"speedup_kind", "downey", "p1 = A, p2 = sigma"},
    {"speedup_kind", "table", "table_n and table_speedup"},
    {"objective_attribute", "end", "the end"},
    {"objective_attribute", "start", "the start"},
    {"objective_attribute", "np", "the CPU count"},
    {"objective_attribute", "cost", "the cost"},
    {"objective_attribute", "esr", "the estimated success rate"},
    {"objective_attribute", "duration", "the reservation's length"},
    {"objective_attribute", "site", "the cluster's name"},
    {"reservation_state", "requested", "asked for, not yet answered"},
    {"reservation_state", "rejected", "refused (terminal)"},
    {"reservation_state", "accepted", "a hold, until its expiry"},
    {"reservation_state", "committed", "the cluster will honour it"},
    {"reservation_state", "change_requested", "a modification is negotiated; the old terms hold"},
    {"reservation_state", "active", "started"},
    {"reservation_state", "cancelled", "withdrawn before it began (terminal)"},
    {"reservation_state", "completed", "its end passed (terminal)"},
    {"reservation_state", "terminated", "stopped by its owner while active (terminal)"},
    {"reservation_state", "expired", "a hold not committed in time (terminal)"},
    {"grid_strategy", "single", "one copy at the best cluster"},
    {"grid_strategy", "flood", "a copy at each of the best width clusters; the first to run wins"},
    {"grid_strategy", "adaptive",
     "one copy, moved while queued when another cluster promises "
     "an earlier delivery"},
    {"grid_strategy", "reserve",
     "holds at the best width clusters; runs in the reservation "
     "with the earliest finish"},
    {"grid_ranking", "start", "by the time to delivery from each cluster's planned start"},
    {"grid_ranking", "sed", "by paper 004's SED delay"},
    {"grid_job_state", "pending", "waiting for its parents or its placement"},
    {"grid_job_state", "queued", "a copy is queued"},
    {"grid_job_state", "running", "a copy runs"},
    {"grid_job_state", "completed", "ran and exited 0 (terminal)"},
    {"grid_job_state", "failed", "ran and failed, or could not be placed (terminal)"},
    {"grid_job_state", "cancelled", "cancelled (terminal)"},
    {"copy_state", "submitting", "written down, the LRMS has not answered yet"},
    {"copy_state", "queued", "in the cluster's queue"},
    {"copy_state", "running", "running"},
    {"copy_state", "completed", "exited 0"},
    {"copy_state", "failed", "failed"},
    {"copy_state", "cancelled", "cancelled (another copy won, a move, the user)"},
    {"observed_state", "queued", "in the LRMS's queue"},
    {"observed_state", "running", "running"},
    {"observed_state", "completed", "exited 0"},
    {"observed_state", "failed", "failed"},
    {"observed_state", "cancelled", "cancelled"},
    {"observed_state", "lost", "ended by the infrastructure (node failure)"},
});

struct sorted_keys {
  std::array<std::size_t, entries.size()> order;
  sorted_keys() {
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::sort(order.begin(), order.end(),
              [](auto a, auto b) { return entries[a].key < entries[b].key; });
  }
  const field_doc* find(std::string_view key) const {
    auto it =
        std::lower_bound(order.begin(), order.end(), key,
                         [](std::size_t i, std::string_view k) { return entries[i].key < k; });
    return it != order.end() && entries[*it].key == key ? &entries[*it].doc : nullptr;
  }
};

}  // namespace

const field_doc* doc_of(std::string_view structure, std::string_view field) {
  static const sorted_keys keys;
  std::string key(structure);
  key += '.';
  key += field;
  if (const auto* d = keys.find(key)) return d;
  return keys.find(key.substr(structure.size()));
}

std::size_t doc_count() {
  return entries.size();
}

std::string_view doc_key(std::size_t i) {
  return entries.at(i).key;
}

std::string_view enum_value_doc(std::string_view enumeration, std::string_view value) {
  for (const auto& v : value_docs)
    if (v.enumeration == enumeration && v.value == value) return v.text;
  return {};
}

std::string_view errc_doc(errc code) {
  switch (code) {
    case errc::invalid_window:
      return "the time window is empty, reversed, in the past or too long";
    case errc::invalid_processor_range:
      return "a CPU count out of range, np_min > np_max, or no size the cluster can reserve";
    case errc::invalid_duration:
      return "a duration that must be positive is not, or is too long";
    case errc::invalid_speedup_model:
      return "seq outside [0, 1], A < 1, sigma < 0, or a bad table";
    case errc::invalid_parameter:
      return "any other bad argument (the message names the field)";
    case errc::capacity_exceeded:
      return "more CPUs than are free";
    case errc::not_allocated:
      return "internal bookkeeping: a release of what was not held";
    case errc::infeasible:
      return "the request cannot be satisfied on the grid";
    case errc::illegal_transition:
      return "the reservation's or job's state does not allow this";
    case errc::not_found:
      return "no such reservation, job or cluster (another user's looks the same)";
    case errc::busy:
      return "refused for now: CPUs taken, every try refused, too many requests or connections";
    case errc::permission_denied:
      return "unknown user, wrong token, not the owner";
    case errc::unreachable:
      return "a batch system or the node does not answer (or the node is stopping)";
    case errc::timeout:
      return "no answer within the deadline";
    case errc::in_use:
      return "jobs are running in it";
    case errc::lrms_failure:
      return "the batch system refused; the message carries its words";
    case errc::storage_failure:
      return "the node's store could not read or write; for a change, its outcome is not known "
             "(check with list)";
    case errc::internal:
      return "a bug in the node (a handler threw, a coordinator died)";
    case errc::slow_consumer:
      return "a watch fell too far behind its events and was cut off (watch again from its "
             "last id)";
    case errc::gone:
      return "no longer kept: a watch asked for events older than the node keeps";
    case errc::not_leader:
      return "this node is a standby: the answer names the node that serves (welcome.leader, "
             "or the HTTP error's detail)";
  }
  return "";
}

std::string_view operation_summary(operation op) {
  switch (op) {
    case operation::none:
      return "the answer to a frame that is no readable request";
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
      return "Watch the changes of reservations and grid jobs";
  }
  return "";
}

std::string_view operation_doc(operation op) {
  switch (op) {
    case operation::elastic:
      return "Paper 000's elastic request: a window [est, let], np_min..np_max CPUs, a run time "
             "dur_ref on np_ref CPUs of power pp_ref adapted by the speedup model, ranked by "
             "the preferences. mode reserve commits the best candidate, hold holds it for a "
             "later commit, whatif ranks the candidates and reserves nothing. A refusal's "
             "detail is the reply with the earliest alternative and the statistics.";
    case operation::coreserve:
      return "Paper 002's co-reservation: every component at the same start (up to its offset), "
             "on distinct clusters where possible, held at each and committed by two-phase "
             "commit, all or nothing.";
    case operation::estimate:
      return "Paper 004's estimate: the earliest start of a job of np CPUs and walltime per "
             "cluster, earliest first, not before ready and ending by deadline; a cluster that "
             "cannot run it has earliest_start -1 and its error (invalid_processor_range: more "
             "CPUs than it has; infeasible: not by the deadline).";
    case operation::commit:
      return "Commits a hold, with jobs to bind (all or none); the reply is the committed "
             "reservation and the LRMS ids of the jobs. Without jobs, a reservation committed "
             "or active already answers illegal_transition (\"committed already, nothing to "
             "commit\") with its info: a client retrying after a lost answer may read that as "
             "done.";
    case operation::modify:
      return "New terms for a reservation: granted, or refused with the old ones kept.";
    case operation::cancel:
      return "Cancels a hold or reservation (terminates an active one); a second cancel "
             "answers illegal_transition.";
    case operation::query:
      return "One reservation, live or finished, with the jobs bound to it.";
    case operation::list:
      return "The live reservations, and with history a page of finished ones.";
    case operation::bind_job:
      return "Submits a job into a committed reservation.";
    case operation::clusters:
      return "What each cluster publishes: CPUs, power, OS, features, limits, nodes.";
    case operation::status:
      return "Each cluster's state now: holds, reservations, the LRMS's jobs and counters. A "
             "user sees their own reservations and running jobs in full and others' as "
             "anonymous busy blocks (no id, owner, account, cost), and only their own entries "
             "in the other lists; an admin sees everyone's.";
    case operation::grid_submit:
      return "Paper 004's best-effort job, placed by its strategy; answered once every copy is "
             "placed or refused.";
    case operation::grid_query:
      return "One grid job with its copies and history.";
    case operation::grid_cancel:
      return "Cancels a grid job and its copies.";
    case operation::grid_list:
      return "Grid jobs (of a state, with a copy at a cluster), newest first; with history, "
             "pages of ended ones as list's.";
    case operation::coallocate:
      return "Binds the jobs of every part of a co-reservation (paper 002, Sec. 3), all or "
             "nothing; the reply has the jobs' LRMS ids by part.";
    case operation::job_query:
      return "One job bound to a reservation, by its LRMS id.";
    case operation::job_cancel:
      return "Cancels one job bound to a reservation; the reservation and its other jobs stay.";
    case operation::grid_submit_many:
      return "Several grid jobs that may wait for each other (a job's after names a sibling by "
             "name or any of the user's jobs by id): named uniquely, no cycle, written all or "
             "none. The reply comes at once, every job pending.";
    case operation::watch:
      return "A subscription (docs/watch.md): a first reply at once says after which event it "
             "starts (last), then a reply per page of events as they happen, all with the "
             "request's id, until an error response ends it (slow_consumer, gone, unreachable). "
             "Over HTTP: GET /v1/watch, as server-sent events.";
    case operation::none:
      return "";
  }
  return "";
}

std::span<const http_status_doc> http_status_docs() {
  static constexpr http_status_doc docs[] = {
      {400,
       "a body that is not a JSON object of the operation's fields, a Content-Type other "
       "than application/json, a request that is no HTTP"},
      {401,
       "no X-Arb-User or bearer token, an unknown user or a wrong token (the same answer "
       "for both; WWW-Authenticate: Bearer); its code is permission_denied"},
      {403, "another user's request, a client certificate of another user"},
      {404, "an unknown path or operation; a reservation of another user looks missing too"},
      {405,
       "a method other than POST on an operation, other than GET on the document or on "
       "/v1/watch (Allow says which); its code is invalid_parameter"},
      {409, ""},
      {410, "a watch resumed after events the node no longer keeps"},
      {413,
       "a body larger than [limits] max_frame_bytes (the connection then closes); its code "
       "is invalid_parameter"},
      {431, "a header over 16 KiB (the connection then closes); its code is invalid_parameter"},
      {500, "slow_consumer only ends a watch's stream, as its error event"},
      {502, ""},
      {503,
       "shutting down; more connections than [limits] max_connections; a standby (not_leader: "
       "detail.leader names the node that serves, {node, address, http_address, epoch}) or a "
       "node still starting (unreachable), with Retry-After: 1"},
      {504, ""},
  };
  return docs;
}

std::vector<errc> codes_of_status(unsigned status) {
  std::vector<errc> out;
  for (int v = 1; v <= static_cast<int>(last_errc); ++v)
    if (http_status_of(static_cast<errc>(v)) == status) out.push_back(static_cast<errc>(v));
  return out;
}

std::string_view operation_example(operation op) {
  switch (op) {
    case operation::elastic:
      return R"({"let": 1924992000, "np_min": 4, "np_max": 16, "dur_ref": 7200, "mode": "hold"})";
    case operation::coreserve:
      return R"({"let": 1924992000, "components": [{"np_min": 8, "np_max": 8, "dur_ref": 3600},)"
             R"( {"np_min": 4, "np_max": 4, "dur_ref": 3600}]})";
    case operation::estimate:
      return R"({"np": 8, "walltime": 3600})";
    case operation::commit:
    case operation::cancel:
    case operation::query:
      return R"({"reservation_id": "berlin/1"})";
    case operation::modify:
      return R"({"reservation_id": "berlin/1", "start": 1893456000, "end": 1893463200, "np": 8})";
    case operation::list:
      return R"({"history": true, "limit": 20})";
    case operation::bind_job:
      return R"({"reservation_id": "berlin/1", "name": "sim", "np": 8, "walltime": 3600,)"
             R"( "command": "./run.sh"})";
    case operation::clusters:
      return "{}";
    case operation::status:
      return R"({"clusters": ["berlin"]})";
    case operation::grid_submit:
      return R"({"name": "render", "command": "./render.sh", "np": 4, "walltime": 1800,)"
             R"( "strategy": "flood", "width": 2})";
    case operation::grid_query:
    case operation::grid_cancel:
      return R"({"id": "demo/g1"})";
    case operation::grid_list:
      return R"({"state": "running"})";
    case operation::coallocate:
      return R"({"parts": [{"reservation_id": "berlin/1", "jobs": [{"name": "a", "np": 8,)"
             R"( "walltime": 3600, "command": "./a"}]}, {"reservation_id": "potsdam/2",)"
             R"( "jobs": [{"name": "b", "np": 4, "walltime": 3600, "command": "./b"}]}]})";
    case operation::job_query:
    case operation::job_cancel:
      return R"({"reservation_id": "berlin/1", "job_id": "42"})";
    case operation::grid_submit_many:
      return R"({"jobs": [{"name": "prep", "command": "./prep", "np": 1, "walltime": 600},)"
             R"( {"name": "main", "command": "./main", "np": 8, "walltime": 3600,)"
             R"( "after": ["prep"]}]})";
    case operation::watch:  // msgpack's body; over HTTP the same as a query
      return R"({"since": 0, "kinds": ["reservation", "grid_job.migrated"]})";
    case operation::none:
      return {};
  }
  return {};
}

}  // namespace arbroker::api::detail
