#pragma once

// The cluster services' typed interface (cluster_service_actor) as a table: for the message
// at position `op` of its signature list, how the agent serves a call of it (decode the
// inputs, ask the local service, encode the outputs) and how a proxy makes one (encode, send,
// decode the answer or make error replies of the right types). Both are generated from the
// signature list, so a message added to the interface is carried without code here.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <caf/all.hpp>

#include "arbroker/actors/broker_scope.hpp"
#include "arbroker/actors/protocols.hpp"
#include "arbroker/api/codec.hpp"
#include "arbroker/core/error.hpp"
#include "arbroker/messages/msgpack_codec.hpp"

namespace arbroker::remote::detail {

using signatures = cluster_service_actor::signatures;

/// Deep enough for every message of the interface (a probe batch nests about 9).
inline constexpr std::size_t max_depth = 32;

/// The msgpack array of `xs` (taken by value: the writer wants mutable references).
template <class... Ts>
std::string pack_values(Ts... xs) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(&buf);
  msg::msgpack_writer w(pk);
  w(xs...);
  return std::string(buf.data(), buf.size());
}

template <class... Ts>
result<std::tuple<Ts...>> unpack_values(std::string_view bytes) {
  auto oh = api::unpack_bounded(bytes, max_depth);
  if (!oh) return oh.err();
  std::tuple<Ts...> values;
  msg::msgpack_reader r(oh->get());
  std::apply([&](auto&... xs) { r(xs...); }, values);
  if (r.failed()) return fail(errc::invalid_parameter, r.error_text());
  return values;
}

// -- per-broker scoping at the agent --------------------------------------------------------
// What a broker passes is written in its name (actors/broker_scope.hpp): its transactions
// "<broker>:<txn>", so that one broker can never commit, abort or release another's and two
// brokers' numbers never collide; its users "<broker>:<user>" and the jobs it cancels
// "<broker>:<lrms id>", so that it reaches only what it made (an admin broker's are scoped by
// no broker, ":<user>", and reach everything); the names of the jobs it submits (grid jobs,
// jobs bound to its reservations) "<broker>+<name>".

/// The broker on the other end of an agent's connection.
struct calling_broker {
  std::string name;
  bool admin = false;  ///< may act on every broker's reservations and jobs
};

inline void scope_txn(std::string& txn, const calling_broker& b) {
  txn = broker_scope::scoped(b.name, txn);
}
inline void scope_user(std::string& user, const calling_broker& b) {
  user = broker_scope::scoped(b.admin ? std::string() : b.name, user);  // ":<user>": anybody's
}
// A site's LJP `enforce` may be waived only by an admin (local_jobs_preferred.hpp). The bit
// says the caller is an admin of its broker node; at the agent that counts only for the
// brokers it trusts as admins (admin_brokers): any other broker's is cleared.
inline void admin_only(bool& admin, const calling_broker& b) {
  if (!b.admin) admin = false;
}
inline void scope(msg::prepare_request& r, const calling_broker& b) {
  scope_txn(r.txn, b);
  admin_only(r.admin, b);
}
inline void scope(msg::probe_batch_request& r, const calling_broker& b) {
  for (auto& p : r.probes)
    admin_only(p.admin, b);
}
inline void scope(msg::busy_hint_request& r, const calling_broker& b) {
  admin_only(r.admin, b);
}
inline void scope(msg::advice_request& r, const calling_broker& b) {
  admin_only(r.admin, b);
}
inline void scope(msg::commit_txn_request& r, const calling_broker& b) {
  scope_txn(r.txn, b);
}
inline void scope(msg::abort_txn_request& r, const calling_broker& b) {
  scope_txn(r.txn, b);
}
inline void scope(msg::release_txn_request& r, const calling_broker& b) {
  scope_txn(r.txn, b);
}
inline void scope(msg::commit_request& r, const calling_broker& b) {
  scope_user(r.user, b);
  for (auto& j : r.jobs)
    j.name = broker_scope::job_name(b.name, j.name);
}
inline void scope(msg::cancel_request& r, const calling_broker& b) {
  scope_user(r.user, b);
}
inline void scope(msg::modify_request& r, const calling_broker& b) {
  scope_user(r.user, b);
  admin_only(r.admin, b);
}
inline void scope(msg::query_request& r, const calling_broker& b) {
  scope_user(r.user, b);
}
inline void scope(msg::bind_job_request& r, const calling_broker& b) {
  scope_user(r.user, b);
  r.name = broker_scope::job_name(b.name, r.name);
}
inline void scope(msg::unbind_jobs_request& r, const calling_broker& b) {
  scope_user(r.user, b);
}
inline void scope(msg::list_request& r, const calling_broker& b) {
  scope_user(r.user, b);
}
inline void scope(msg::job_cancel_request& r, const calling_broker& b) {
  scope_user(r.lrms_id, b);
}
inline void scope(msg::job_submit_request& r, const calling_broker& b) {
  r.name = broker_scope::job_name(b.name, r.name);
}
inline void scope(msg::job_find_request& r, const calling_broker& b) {
  for (auto& n : r.names)
    n = broker_scope::job_name(b.name, n);
}
template <class T>
void scope(T&, const calling_broker&) {}

inline void unscope(msg::prepare_reply& r, const calling_broker& b) {
  if (broker_scope::belongs_to(r.txn, b.name)) r.txn.erase(0, b.name.size() + 1);
}
template <class T>
void unscope(T&, const calling_broker&) {}

// -- error replies ---------------------------------------------------------------------------

/// An output of a failed call: the call's tag echoed, a reply carrying the error.
template <class Out>
Out failed_output(const std::optional<msg::call_tag>& tag, const error& e) {
  if constexpr (std::is_same_v<Out, msg::call_tag>)
    return tag.value_or(msg::call_tag{});
  else
    return msg::error_reply<Out>(e);
}

template <class First, class... Rest>
std::optional<msg::call_tag> tag_of(const First& first, const Rest&...) {
  if constexpr (std::is_same_v<First, msg::call_tag>)
    return first;
  else
    return std::nullopt;
}

/// How an answer reaches the agent's connection: (errc, body or message).
using answer_fn = std::function<void(std::uint8_t code, std::string body)>;
/// How a proxy's call comes back: the outputs' bytes, or why there are none.
using finish_fn = std::function<void(result<std::string>)>;

template <class T, class... Us>
inline constexpr bool one_of = (std::is_same_v<T, Us> || ...);

/// What a call does to the cluster at the agent, which decides how a proxy sends it
/// (remote_agent.cpp).
enum class effect : std::uint8_t {
  reads,    ///< nothing: a probe, an advice, a query, a listing, job states
  settles,  ///< the second phase of a transaction (commit, abort, release): delivered
            ///< across link losses
  changes,  ///< anything else it changes (a new hold, a client's change to a reservation or
            ///< its jobs, a grid job submitted or cancelled): not sent once the node may no
            ///< longer change its batch systems
};

template <class Sig>
struct operation;

template <class... In, class... Out>
struct operation<caf::typed_mpi<caf::detail::type_list<In...>, caf::output_tuple<Out...>>> {
  /// Whether this message is the request T alone.
  template <class T>
  static constexpr bool takes = std::is_same_v<std::tuple<In...>, std::tuple<T>>;

  static constexpr effect what =
      (one_of<In, msg::commit_txn_request, msg::abort_txn_request, msg::release_txn_request> || ...)
          ? effect::settles
      : (one_of<In, msg::prepare_request, msg::commit_request, msg::cancel_request,
                msg::modify_request, msg::bind_job_request, msg::bound_job_cancel_request,
                msg::unbind_jobs_request, msg::job_submit_request, msg::job_cancel_request> ||
         ...)
          ? effect::changes
          : effect::reads;

  /// The agent's side: decode, scope, ask `service`, answer with the outputs.
  static void serve(caf::event_based_actor* self, const caf::actor& service,
                    const calling_broker& broker, std::string_view body, answer_fn answer) {
    auto in = unpack_values<In...>(body);
    if (!in)
      return answer(static_cast<std::uint8_t>(errc::invalid_parameter),
                    "undecodable call: " + in.err().message);
    std::apply(
        [&](In&... xs) {
          (scope(xs, broker), ...);
          self->request(service, caf::infinite, std::move(xs)...)
              .then(
                  [answer, broker](Out&... outs) {
                    (unscope(outs, broker), ...);
                    answer(0, pack_values(std::move(outs)...));
                  },
                  [answer, self](caf::error& e) {
                    answer(static_cast<std::uint8_t>(errc::unreachable),
                           "the cluster service is gone: " + self->system().render(e));
                  });
        },
        *in);
  }

  /// The proxy's side: a handler for the message that sends it through `call` and delivers
  /// what comes back (or error replies) to the sender.
  template <class Proxy>
  static auto handler(Proxy* proxy, std::uint32_t op) {
    return [proxy, op](const In&... in) -> caf::result<Out...> {
      auto rp = proxy->self()->template make_response_promise<Out...>();
      proxy->call(op, pack_values(in...),
                  [rp, tag = tag_of(in...)](result<std::string> body) mutable {
                    if (body) {
                      auto outs = unpack_values<Out...>(*body);
                      if (outs) {
                        std::apply([&](Out&... o) { rp.deliver(std::move(o)...); }, *outs);
                        return;
                      }
                      body = error{errc::internal,
                                   "an undecodable answer from the agent: " + outs.err().message};
                    }
                    rp.deliver(failed_output<Out>(tag, body.err())...);
                  });
      return rp;
    };
  }

  /// This message's part of the interface's fingerprint.
  static std::string shape() {
    std::string s = pack_values(In{}...) + "->" + pack_values(Out{}...);
    const auto names = [&](const auto* p) {
      using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
      if constexpr (msg::has_field_list<T>) s += std::string(field_list(p)) + ";";
    };
    (names(static_cast<const In*>(nullptr)), ...);
    (names(static_cast<const Out*>(nullptr)), ...);
    return s;
  }
};

using serve_fn = void (*)(caf::event_based_actor*, const caf::actor&, const calling_broker&,
                          std::string_view, answer_fn);

template <class... Sigs>
constexpr std::array<serve_fn, sizeof...(Sigs)> make_serve_table(caf::detail::type_list<Sigs...>) {
  return {&operation<Sigs>::serve...};
}
/// serve_table[op] serves message `op`.
inline constexpr auto serve_table = make_serve_table(signatures{});
inline constexpr std::uint32_t operation_count = serve_table.size();

template <class... Sigs>
constexpr std::array<effect, sizeof...(Sigs)> make_effect_table(caf::detail::type_list<Sigs...>) {
  return {operation<Sigs>::what...};
}
inline constexpr auto effect_table = make_effect_table(signatures{});
/// What message `op` does at the agent (an unknown op reads nothing).
constexpr effect effect_of(std::uint32_t op) {
  return op < effect_table.size() ? effect_table[op] : effect::reads;
}

/// The position of the message that is the request T alone (operation_count if none).
template <class T, class... Sigs>
constexpr std::uint32_t op_taking(caf::detail::type_list<Sigs...>) {
  std::uint32_t i = 0, found = sizeof...(Sigs);
  ((found = (found == sizeof...(Sigs) && operation<Sigs>::template takes<T>) ? i : found, ++i),
   ...);
  return found;
}
inline constexpr std::uint32_t query_op = op_taking<msg::query_request>(signatures{});
inline constexpr std::uint32_t list_op = op_taking<msg::list_request>(signatures{});
static_assert(query_op < operation_count && list_op < operation_count);

template <class... Sigs>
std::string interface_shape(caf::detail::type_list<Sigs...>) {
  return (std::string() + ... + (operation<Sigs>::shape() + "\n"));
}

/// The proxy's behaviour: one handler per message of the interface, then `extra`.
template <class Behavior, class Proxy, class... Sigs, std::size_t... I, class... Extra>
Behavior make_proxy_behavior(caf::detail::type_list<Sigs...>, std::index_sequence<I...>,
                             Proxy* proxy, Extra... extra) {
  return {operation<Sigs>::handler(proxy, static_cast<std::uint32_t>(I))..., std::move(extra)...};
}

}  // namespace arbroker::remote::detail
