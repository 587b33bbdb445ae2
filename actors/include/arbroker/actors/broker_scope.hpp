#pragma once

// Names scoped by broker at an agent (remote/README.md). An agent serves several broker
// nodes, and each may act only on what it made (an admin broker, by the agent's
// configuration, on everything). The agent's connection writes the calling broker into what
// it passes to a cluster service:
//   "<broker>:<txn>"      a transaction (every broker's, admin or not);
//   "<broker>:<user>"     the user of an operation on reservations by id or a list (an empty
//                         user, "<broker>:", is that broker's admin: all of its reservations);
//   "<broker>:<lrms id>"  a grid job it cancels;
//   ":<user>", ":<lrms id>"  the same from an admin broker: anybody's;
//   "<broker>+<name>"     a grid job's name in the LRMS (Grid Engine takes no ':' there).
// A cluster service with scoped callers (cluster_service_config::scoped_callers) reads them
// back: a reservation is the broker's when its transaction is, a job when its name is.
// Broker names are therefore restricted to letters, digits, '.', '_' and '-'.

#include <optional>
#include <string>
#include <string_view>

namespace arbroker::broker_scope {

inline std::string scoped(std::string_view broker, std::string_view x) {
  std::string s;
  s.reserve(broker.size() + 1 + x.size());
  s.append(broker).push_back(':');
  s.append(x);
  return s;
}

inline std::string job_name(std::string_view broker, std::string_view name) {
  std::string s(broker);
  s.push_back('+');
  s.append(name);
  return s;
}

/// A scoped name taken apart: the broker, and what it scopes.
struct caller {
  std::string_view broker;
  std::string_view rest;
};

/// Split at the first ':' (broker names have none); nullopt when there is none.
inline std::optional<caller> split(std::string_view x) {
  const auto i = x.find(':');
  if (i == std::string_view::npos) return std::nullopt;
  return caller{x.substr(0, i), x.substr(i + 1)};
}

/// Who a name given to a cluster service speaks for: with scoped callers (at an agent) the
/// broker and what it scopes, else no broker ("") and the name as it is.
inline caller caller_of(std::string_view x, bool scoped_callers) {
  if (scoped_callers)
    if (auto c = split(x)) return *c;
  return {{}, x};
}

/// Whether `scoped_name` ("<broker>:...") is `broker`'s.
inline bool belongs_to(std::string_view scoped_name, std::string_view broker) {
  return scoped_name.size() > broker.size() && scoped_name[broker.size()] == ':' &&
         scoped_name.starts_with(broker);
}

/// Whether caller `who` may see a reservation of `owner` made in transaction `txn`: its
/// broker made it (any broker's for an admin broker's "") and its user owns it (anyone's
/// for an empty user). Cluster services and the agent's history both judge by this.
inline bool may_see(const caller& who, std::string_view txn, std::string_view owner) {
  return (who.broker.empty() || belongs_to(txn, who.broker)) &&
         (who.rest.empty() || owner == who.rest);
}

/// Whether `name` can name a broker: 1 to 64 letters, digits, '.', '_' or '-'.
inline bool valid_broker_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

}  // namespace arbroker::broker_scope
