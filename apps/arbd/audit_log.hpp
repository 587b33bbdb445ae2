#pragma once

// The node's audit trail: one structured line per answered request and per refused login,
// from the API server's hooks (api::server_events), on a logger of its own so that it is
// written at any log level but "off".

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "arbroker/api/server.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// How many refusals of one client (front end, user, peer, outcome) an interval writes
/// line by line; the rest go into one summary line (refusal_flood.hpp).
struct audit_limits {
  std::chrono::steady_clock::duration interval = std::chrono::seconds(10);
  std::size_t burst = 20;
};

/// The logger "audit" (on the default logger's sinks, written at any level but "off") that
/// audit_reservation() and audit_note() write to: all a process without an API needs (the
/// agent).
void install_audit_trail();

/// The audit trail, and hooks that log every answered request and refused login to it.
/// Refusals beyond `limits` are summarized.
void install_audit_log(api::server_events& events, audit_limits limits = {});

/// Writes `event=refusals_summarized ... suppressed=N` for each client whose interval is
/// over (all: every one, at shutdown). Called periodically (arbd's status poll).
void audit_refusal_summaries(bool all = false);

/// One line per recorded change of a reservation (node_hooks::reservation_changed):
/// `event=reservation id= cluster= owner= state= start= end= np= cost= txn= lrms_id=`, recovery's
/// included. Quiet until install_audit_log() has run.
void audit_reservation(const reservation_row& row);

/// Writes one line to the audit trail (`event=... `), or to the default logger at info when
/// no audit trail is installed: what operators must be able to trace (a credentials reload).
void audit_note(const std::string& line);

/// `text` in double quotes for a log line: quotes and backslashes escaped, bytes outside
/// printable ASCII as \xNN (a user name or id may be anything a client sent).
std::string log_quoted(std::string_view text);

}  // namespace arbroker
