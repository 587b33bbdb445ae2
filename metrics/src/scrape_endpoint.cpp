#include "arbroker/metrics/scrape_endpoint.hpp"

#include <arpa/inet.h>
#include <prometheus/exposer.h>
#include <prometheus/text_serializer.h>

#include <exception>
#include <iterator>

namespace arbroker::metrics {

scrape_endpoint::scrape_endpoint(std::unique_ptr<prometheus::Exposer> e, std::uint16_t port,
                                 std::vector<std::shared_ptr<prometheus::Collectable>> collectables)
    : collectables_(std::move(collectables)), exposer_(std::move(e)), port_(port) {}

scrape_endpoint::~scrape_endpoint() = default;

result<std::unique_ptr<scrape_endpoint>> scrape_endpoint::start(
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
    const scrape_options& opts) {
  // civetweb wants numeric addresses ("[...]" around IPv6); checked here so that a bad one
  // is a clear error instead of civetweb's "possible problem binding to port".
  in6_addr a6{};
  in_addr a4{};
  std::string where;
  if (::inet_pton(AF_INET, opts.address.c_str(), &a4) == 1)
    where = opts.address;
  else if (::inet_pton(AF_INET6, opts.address.c_str(), &a6) == 1)
    where = "[" + opts.address + "]";
  else
    return fail(errc::invalid_parameter,
                "metrics address '" + opts.address + "' is not an IPv4 or IPv6 literal");
  if (opts.threads < 1 || opts.client_timeout.count() < 1)
    return fail(errc::invalid_parameter, "metrics endpoint needs a thread and a timeout");
  where += ":" + std::to_string(opts.port);

  std::unique_ptr<prometheus::Exposer> e;
  try {
    e = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", where,                                           //
        "num_threads", std::to_string(opts.threads),                        //
        "request_timeout_ms", std::to_string(opts.client_timeout.count()),  //
        "enable_keep_alive", "no"});
  } catch (const std::exception& ex) {  // civetweb throws when it cannot listen
    return fail(errc::busy, "cannot serve metrics on " + where + ": " + ex.what());
  }
  const auto ports = e->GetListeningPorts();
  if (ports.empty()) return fail(errc::busy, "cannot serve metrics on " + where);
  for (const auto& c : collectables)
    e->RegisterCollectable(c);
  return std::unique_ptr<scrape_endpoint>(
      new scrape_endpoint(std::move(e), static_cast<std::uint16_t>(ports.front()), collectables));
}

std::string text_exposition(
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables) {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& c : collectables) {
    auto some = c->Collect();
    families.insert(families.end(), std::make_move_iterator(some.begin()),
                    std::make_move_iterator(some.end()));
  }
  return prometheus::TextSerializer{}.Serialize(families);
}

}  // namespace arbroker::metrics
