// `arb`'s subcommands and their options (CLI11), with their help texts and checks.
#include "cli.hpp"

#include "version.hpp"

#include <limits>

namespace arbroker::cli {

void define(CLI::App& app, options& o) {
  app.description("arb: talk to an arbroker node (advance reservations across clusters)");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("arb, arbroker ") + build_version() +
                                        ", protocol " + std::to_string(api::protocol_version));
  app.add_option("--server,-s", o.server,
                 "broker address host:port; several nodes on one store: host:port,host:port "
                 "(the one that serves is used)")
      ->envname("ARB_SERVER")
      ->capture_default_str();
  app.add_option("--user,-u", o.user, "user name")->envname("ARB_USER");
  app.add_option("--token,-t", o.token, "secret token")->envname("ARB_TOKEN");
  app.add_option("--ca", o.ca, "TLS: CA of the node's certificate (PEM); without it, plain text")
      ->envname("ARB_CA");
  app.add_option("--cert", o.cert, "TLS: client certificate (PEM), if the node asks for one")
      ->envname("ARB_CERT");
  app.add_option("--key", o.key, "TLS: the client certificate's private key (PEM)")
      ->envname("ARB_KEY");
  app.add_option("--output,-o", o.output, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  app.add_option("--timeout", o.timeout, "seconds to wait for the broker")->capture_default_str();
  app.add_option("--for", o.as_user, "act for this user (admins only)");

  auto window = [&o](CLI::App* sub) {
    sub->add_option("--est", o.est, "earliest start (now, now+1h, ISO 8601, epoch)")
        ->capture_default_str();
    sub->add_option("--let", o.let, "latest end")->required();
  };
  auto slotting = [&o](CLI::App* sub) {
    sub->add_option("--prefer", o.prefer, "preferences, e.g. end,cost,-esr");
    sub->add_option("--tsn-max", o.tsn_max, "start times tried per cluster")->capture_default_str();
    sub->add_option("--tss-gap", o.tss_gap, "gap between tried start times")->capture_default_str();
    sub->add_flag("--no-local-preference", o.no_local_preference,
                  "may postpone queued local jobs (an admin's right where a site enforces "
                  "local-jobs-preferred)");
  };
  // Paper 003 Sec. 3.2, for grid jobs and elastic requests alike.
  auto hint_options = [&o](CLI::App* sub, const std::string& benchmark_help) {
    sub->add_option("--benchmark", o.benchmarks,
                    "name=result:time, e.g. linpack=12.5:2h: " + benchmark_help + " (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--penalty", o.penalty, "c: a missing benchmark counts c x the longest other")
        ->capture_default_str();
    sub->add_option("--input", o.inputs, "input file location:size, e.g. gsiftp://h/f:2GB")
        ->allow_extra_args(false);
    sub->add_option("--output-size", o.output_size, "expected output, e.g. 500MB");
  };
  auto elastic_options = [&](CLI::App* sub) {
    window(sub);
    sub->add_option("--np", o.np, "processors: N or MIN-MAX")->required();
    sub->add_option("--runtime,--dur-ref", o.dur_ref,
                    "run time on --np-ref CPUs of power --pp-ref (2h, 90m); each cluster gets "
                    "it adapted to its CPUs; optional with --benchmark");
    sub->add_option("--pp-ref", o.pp_ref,
                    "processor power --runtime is for (default: each cluster's own, no scaling)");
    sub->add_option("--np-ref", o.np_ref,
                    "CPU count --runtime is for (default: the lower end of --np)");
    sub->add_option("--speedup", o.speedup, "amdahl:SEQ, downey:A:SIGMA or table:N=S,...")
        ->capture_default_str();
    sub->add_option("--policy", o.policy, "matchmaking policy instead of preferences");
    sub->add_option("--esr", o.esr, "success-rate method: static, history, load")
        ->capture_default_str();
    sub->add_option("--esr-threshold", o.esr_threshold, "minimum success rate (0..1)");
    sub->add_option("--os", o.os, "required operating system");
    sub->add_option("--account", o.account,
                    "account the reservation (and its jobs) is charged to (paper 003)");
    sub->add_flag("--movable", o.movable,
                  "run within [est, let]: a cluster with laxity may move the reservation there "
                  "until it starts (paper 002); arb show tells the current start");
    sub->add_option("--feature", o.features, "required feature (repeatable)")
        ->allow_extra_args(false);
    sub->add_option("--cluster", o.clusters, "allowed cluster (repeatable; default any)")
        ->allow_extra_args(false);
    hint_options(sub, "run time on np-ref CPUs of a system with that result");
    slotting(sub);
  };
  auto id_arg = [&o](CLI::App* sub) { sub->add_option("id", o.id, "reservation id")->required(); };
  auto named = [&](const char* name, const char* help) {
    auto* sub = app.add_subcommand(name, help);
    sub->callback([&o, name] { o.command = name; });
    return sub;
  };

  elastic_options(named("reserve", "reserve and commit the best candidate"));
  auto* hold = named("hold", "hold the best candidate; commit it later with `arb commit`");
  elastic_options(hold);
  hold->add_option("--hold-for", o.hold_for, "how long the hold lasts (default: the node's)");
  elastic_options(named("whatif", "rank the candidates without reserving"));

  auto* co = named("coreserve",
                   "reserve components that start together (on distinct clusters where possible)");
  window(co);
  co->add_option("--component,-c", o.components,
                 "np=4-8;dur=2h;np-ref=4;pp-ref=1500;speedup=amdahl:0.1;offset=10m;clusters=a,b")
      ->required()
      ->allow_extra_args(false);
  co->add_option("--max-attempts", o.max_attempts, "common slots to try")->capture_default_str();
  co->add_option("--account", o.account, "account every part is charged to");
  co->add_option("--esr", o.esr, "success-rate method of every part: static, history, load")
      ->capture_default_str();
  co->add_option("--esr-threshold", o.esr_threshold, "minimum success rate of every part (0..1)");
  slotting(co);

  auto* est = named("estimate", "earliest start of a job on each cluster");
  est->add_option("--np", o.np, "processors")->required();
  est->add_option("--walltime", o.walltime, "run time, e.g. 2h")->required();
  est->add_option("--cluster", o.clusters, "cluster to ask (repeatable; default all)")
      ->allow_extra_args(false);
  est->add_option("--ready", o.ready, "not before (e.g. now+1h: when the input is there)");
  est->add_option("--deadline", o.deadline, "ending by (e.g. now+12h)");

  auto* commit = named("commit",
                       "commit a held reservation, optionally with a job to run in it (both or "
                       "neither)");
  id_arg(commit);
  commit->add_option("--np", o.np, "the job's processors");
  commit->add_option("--walltime", o.walltime, "the job's run time limit, e.g. 1h");
  commit->add_option("--name", o.name, "the job's name");
  commit->add_option("--command", o.job_command, "the job's command");
  auto* coalloc = named("coallocate",
                        "start a job in every part of a co-reservation, all or none (if one "
                        "part's job cannot start, none is kept)");
  coalloc->add_option("ids", o.ids, "the parts' reservation ids")->required();
  coalloc->add_option("--np", o.np, "processors: one value for every part, or N1,N2,... per part")
      ->required();
  coalloc->add_option("--walltime", o.walltime, "the jobs' run time limit, e.g. 1h")->required();
  coalloc->add_option("--name", o.name, "the jobs' name");
  coalloc->add_option("--command", o.job_command, "the jobs' command");
  id_arg(named("show", "show one reservation"));
  id_arg(named("cancel", "cancel a reservation"));
  auto* list = named("list", "list your reservations");
  list->add_flag("--all", o.all, "every user's reservations (admins only)");
  list->add_option("--state", o.list.states,
                   "only this state (repeatable; default: live ones: accepted, committed, "
                   "change_requested, active)")
      ->allow_extra_args(false);
  list->add_flag("--history", o.list.history,
                 "also completed, cancelled, expired, ... ones (a page of them, the most recently "
                 "finished first)");
  list->add_option("--limit", o.list.limit, "finished ones per page of history (default 100)")
      ->check(CLI::Range(1, 1000));
  list->add_option("--before", o.list.before,
                   "the next page of history: the cursor the previous page named");
  list->add_option("--cluster", o.list.clusters, "only this cluster (repeatable)")
      ->allow_extra_args(false);
  list->add_option("--owner", o.list.owners, "only this owner's (repeatable; with --all)")
      ->allow_extra_args(false);
  list->add_option("--from", o.list.from, "only those ending after T");
  list->add_option("--to", o.list.to, "only those starting before T");
  list->add_option("--sort", o.list.sort, "field to sort by, -field descending")
      ->capture_default_str();
  list->add_option("--format", o.list.format,
                   "fields to show, e.g. id,start,duration,np (id, cluster, owner, start, end, "
                   "duration, np, state, cost, expiry, account, finished, created, window)");
  list->add_flag("--noheader", o.list.noheader, "no header line");
  list->add_flag("--parsable", o.list.parsable, "fields separated by '|', no padding");
  auto* modify = named("modify", "change a committed reservation's terms");
  id_arg(modify);
  modify->add_option("--start", o.start, "new start")->required();
  modify->add_option("--end", o.end, "new end");
  modify->add_option("--duration", o.duration, "new length (instead of --end)");
  modify->add_option("--np", o.np, "new processor count")->required();
  modify->add_flag("--no-local-preference", o.no_local_preference,
                   "may postpone queued local jobs (an admin's right where a site enforces "
                   "local-jobs-preferred)");
  auto* submit = named("submit",
                       "submit a job: into a reservation (--reservation), or as a grid job the "
                       "broker places by --strategy");
  submit->add_option("--reservation,-r", o.id, "reservation id (omit: a grid job)");
  submit->add_option("--np", o.np, "processors")->required();
  submit->add_option("--walltime", o.walltime, "run time limit, e.g. 1h");
  submit->add_option("--name", o.name, "job name");
  submit->add_option("--command", o.job_command, "command to run");
  submit->add_option("--strategy", o.strategy, "grid job: single, flood, adaptive, reserve")
      ->capture_default_str();
  submit->add_option("--width", o.width, "grid job: copies of a flood (1..16)")
      ->capture_default_str();
  submit
      ->add_option("--rank", o.rank,
                   "grid job: rank clusters by the earliest planned start (start) or by paper "
                   "004's SED delay (sed)")
      ->capture_default_str();
  hint_options(submit, "grid job: run time on a system with that result");
  submit->add_option("--min-gain", o.min_gain,
                     "adaptive, reserve: move only for a gain above this");
  submit->add_option("--max-migrations", o.max_migrations,
                     "adaptive, reserve: at most this many moves (-1: any)");
  submit->add_option("--max-resubmits", o.max_resubmits,
                     "grid job: place it again at most this many times when its cluster, node "
                     "or copy is lost (default: the node's)");
  submit
      ->add_option("--retry-on-failure", o.retry_on_failure,
                   "grid job: place it again at most this many times when it fails by itself "
                   "(non-zero exit, walltime)")
      ->capture_default_str();
  submit->add_option("--pp-ref", o.pp_ref,
                     "grid job: the CPU power --walltime holds for; on a cluster of power pp it "
                     "runs walltime x pp-ref / pp (paper 004 eq. 1-3)");
  submit->add_flag("--fallback-flood", o.fallback_flood,
                   "reserve: when no cluster grants a hold, run as a flood of --width copies");
  submit->add_flag("--finish-eq7", o.finish_eq7,
                   "reserve: rank holds by paper 004's eq. 7 as printed (default: start + run)");
  submit->add_option("--cluster", o.clusters, "grid job: allowed cluster (repeatable)")
      ->allow_extra_args(false);
  submit->add_option("--mem-per-cpu", o.mem_per_cpu,
                     "memory for each CPU, as Slurm writes it (4096 MiB, 4G); placed only where "
                     "nodes have it, and passed to the batch system");
  submit->add_option("--mem", o.mem, "memory on each node it uses (instead of --mem-per-cpu)");
  submit
      ->add_option("--feature", o.features,
                   "node feature every node it uses has (Slurm constraint, Grid Engine "
                   "complex; repeatable)")
      ->allow_extra_args(false);
  submit->add_option("--os", o.os, "grid job: only on clusters of this operating system");
  submit
      ->add_option("--after", o.after,
                   "grid job: wait for grid job ID to complete (ID or ID:ok), or to end however "
                   "(ID:any); it fails if one ends otherwise (repeatable)")
      ->allow_extra_args(false);
  submit
      ->add_option("--on-parent-failure", o.on_parent_failure,
                   "grid job: when a job it waits for ends otherwise than asked, fail it or "
                   "cancel it (and so the jobs that wait for it)")
      ->check(CLI::IsMember({"fail", "cancel"}))
      ->capture_default_str();
  submit->add_flag("--no-locality", o.no_locality,
                   "grid job: place it as if its parents' outputs were nowhere (by default it "
                   "prefers the clusters that hold them)");
  auto* dag = named("submit-dag",
                    "submit the grid jobs of a TOML file that wait for each other (after = "
                    "[\"name\"]), all or none; see docs/grid-jobs.md");
  dag->add_option("file", o.jobs_file, "job file (TOML)")->required()->check(CLI::ExistingFile);
  auto* jobs = named("jobs", "list your grid jobs");
  jobs->add_option("--state", o.state, "only in this state (queued, running, ...)");
  jobs->add_option("--cluster", o.clusters, "only with a copy on this cluster")
      ->allow_extra_args(false);
  jobs->add_flag("--all", o.all, "every user's grid jobs (admins only)");
  jobs->add_flag("--noheader", o.jobs_noheader, "no header line");
  jobs->add_flag("--parsable", o.jobs_parsable, "fields separated by '|', no padding");
  jobs->add_option("--format", o.jobs_format,
                   "fields to show, e.g. id,state,cluster (" + joined(job_fields()) + ")");
  jobs->add_flag("--history", o.jobs_history,
                 "ended ones too, from the node's store, most recently ended first, by pages");
  jobs->add_option("--limit", o.jobs_limit, "ended ones per page of history (default 100)")
      ->check(CLI::Range(1, 1000));
  jobs->add_option("--before", o.jobs_before,
                   "the next page of history: the cursor the previous page named");
  auto* job = app.add_subcommand("job", "one grid job, or one job in a reservation");
  job->require_subcommand(1);
  auto* job_show = job->add_subcommand(
      "show", "a grid job with its copies and history, or (-r) a job in a reservation");
  job_show->add_option("id", o.job_id, "grid job id, or with -r the job's id in its LRMS")
      ->required();
  job_show->add_option("--reservation,-r", o.id, "the reservation the job runs in");
  job_show->callback([&o] { o.command = "job show"; });
  auto* job_cancel = job->add_subcommand(
      "cancel",
      "cancel a grid job and every copy of it, or (-r) one job in a reservation, which stays");
  job_cancel->add_option("id", o.job_id, "grid job id, or with -r the job's id in its LRMS")
      ->required();
  job_cancel->add_option("--reservation,-r", o.id, "the reservation the job runs in");
  job_cancel->callback([&o] { o.command = "job cancel"; });
  auto* watch = named("watch",
                      "print the changes of your reservations and grid jobs as they happen, one "
                      "line each (see docs/watch.md)");
  watch
      ->add_option("--since", o.since,
                   "after this event id (the last one you saw: nothing lost, nothing repeated; "
                   "0: every event kept; default: from now on)")
      ->check(CLI::Range(std::int64_t{-1}, std::numeric_limits<std::int64_t>::max()));
  watch
      ->add_option("--kind", o.kinds,
                   "only these kinds or families, e.g. reservation, grid_job.migrated "
                   "(repeatable)")
      ->allow_extra_args(false);
  watch->add_flag("--all", o.all, "every user's (admins only)");
  watch->add_option("--count", o.count, "stop after this many events")->check(CLI::PositiveNumber);
  named("clusters", "list the clusters of this node");
  auto* status = named("status", "current state of the clusters");
  status->add_option("--cluster", o.clusters, "cluster (repeatable; default all)")
      ->allow_extra_args(false);
}

}  // namespace arbroker::cli
