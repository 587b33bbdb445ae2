#pragma once

#include <memory>
#include <string>

#include "arbroker/actors/engine.hpp"
#include "arbroker/actors/protocols.hpp"
#include "arbroker/store/journal.hpp"

namespace arbroker {

/// Settings of a grid reservation service (the broker) and of its coordinators.
struct broker_config {
  gis_actor gis;
  clock_fn clock;
  double default_esr_threshold = -1;  ///< applied when a request gives none (< 0: no filter)
  duration hold_seconds = 120;        ///< hold length for mode hold when a request gives none
  duration prepare_expiry = 30;       ///< holds between prepare and commit
  duration request_timeout = 30;      ///< a request is answered within this, whatever happens
  int max_tries = 64;                 ///< reserve tries per elastic request (depth-first)
  /// Prefix of every transaction id; unique per broker start ("": random, 64 bits). Set it
  /// only where runs must be reproducible (the simulator).
  std::string incarnation;
  /// The co-reservation coordinators' log of commit decisions (null: not kept).
  std::shared_ptr<reservation_journal> journal;
  std::uint64_t matchmaker_seed = 1;  ///< the matchmaker's RAN policy draws from this seed
  /// Paper 002, Sec. 3.1: at most this many of the clusters that can host a request are
  /// passed to the matchmaker (its selection window); 0: all. The window slides by one
  /// cluster per request over the clusters in name order, so every cluster gets its turn
  /// and no advisor is asked about every request.
  int selection_window = 0;
  /// Candidates each cluster sends per probe, its best by the request's preferences; the
  /// rest are asked for only when the reserve tries get past them (0: all at once).
  int probe_keep = 4;
  /// Long-lived actors that run the elastic requests (each many at once), in turn.
  int elastic_workers = 4;
  /// The same for co-reservations.
  int coreservation_workers = 2;
};

}  // namespace arbroker
