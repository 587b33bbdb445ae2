#include "arbroker/api/tls.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "arbroker/api/client.hpp"
#include "arbroker/api/server.hpp"
#include "test_certificates.hpp"

namespace arbroker::api {
namespace {

using namespace std::chrono_literals;

/// Answers list with one reservation owned by the caller.
class owner_handler : public request_handler {
 public:
  void handle(const caller& who, request req, std::function<void(response)> done) override {
    response r;
    if (std::holds_alternative<msg::list_request>(req.body)) {
      msg::list_reply l;
      l.reservations.push_back(msg::reservation_info{"c/1", "c", who.user, 0, 1, 1,
                                                     reservation_state::committed, 0, 0, 0});
      r.body = l;
    } else {
      r.body = empty_response_body(req.op());
    }
    done(std::move(r));
  }
};

std::string file(const std::string& name) {
  return testing::certificate_file(name);
}

tls_context server_tls(bool client_certs) {
  auto ctx =
      make_server_tls({file("server.pem"), file("server.key"), client_certs ? file("ca.pem") : ""});
  EXPECT_TRUE(ctx) << to_string(ctx.err());
  return ctx ? *ctx : nullptr;
}

tls_context client_tls(const std::string& ca = "ca.pem", const std::string& who = "") {
  auto ctx = make_client_tls(
      {file(ca), who.empty() ? "" : file(who + ".pem"), who.empty() ? "" : file(who + ".key")});
  EXPECT_TRUE(ctx) << to_string(ctx.err());
  return ctx ? *ctx : nullptr;
}

struct tls_node {
  explicit tls_node(bool client_certs = false, std::chrono::milliseconds handshake = 5s) {
    server_config c;
    c.node_name = "tls-node";
    c.tokens = {{"alice", {"alice-token", false}}, {"bob", {"bob-token", false}}};
    c.tls = server_tls(client_certs);
    c.client_cert_is_user = client_certs;
    c.limits.handshake_timeout = handshake;
    c.events.on_login_refused = [this](const login_refusal& r) {
      std::lock_guard lock(mu);
      refusals.push_back(r.reason);
    };
    srv.emplace(std::move(c), handler, 2);
    port = srv->local_endpoint().port();
  }
  std::vector<std::string> reasons() {
    std::lock_guard lock(mu);
    return refusals;
  }
  owner_handler handler;
  std::mutex mu;
  std::vector<std::string> refusals;
  std::optional<threaded_server> srv;
  std::uint16_t port = 0;
};

TEST(tls, AClientThatTrustsTheCaLogsInAndIsServed) {
  tls_node n;
  client_options o{5s};
  o.tls = client_tls();
  client c(o);
  auto w = c.connect("127.0.0.1", n.port, "alice", "alice-token");
  ASSERT_TRUE(w) << to_string(w.err());
  EXPECT_EQ(w->node, "tls-node");
  for (int i = 0; i < 3; ++i) {
    auto r = c.call(msg::list_request{});
    ASSERT_TRUE(r && r->ok());
    EXPECT_EQ(std::get<msg::list_reply>(r->body).reservations.at(0).owner, "alice");
  }
  // By name too: the certificate names localhost.
  client_options named = o;
  named.tls_name = "localhost";
  client by_name(named);
  EXPECT_TRUE(by_name.connect("127.0.0.1", n.port, "bob", "bob-token"));
  EXPECT_TRUE(n.reasons().empty());
}

TEST(tls, PlainTextToATlsServerIsRefusedBeforeAnyMessage) {
  tls_node n;
  client plain(client_options{5s});
  auto w = plain.connect("127.0.0.1", n.port, "alice", "alice-token");
  ASSERT_FALSE(w);
  EXPECT_FALSE(plain.connected());
  // The client names what to do (it said "connection closed by the server" alone).
  EXPECT_EQ(w.err().code, errc::unreachable);
  EXPECT_NE(w.err().message.find("if the node serves TLS, pass its CA (--ca FILE or ARB_CA)"),
            std::string::npos)
      << w.err().message;
  ASSERT_EQ(n.reasons().size(), 1u);
  EXPECT_NE(n.reasons()[0].find("TLS handshake failed"), std::string::npos) << n.reasons()[0];
  EXPECT_EQ(n.srv->counters().requests_dispatched, 0u);
  EXPECT_GE(n.srv->counters().handshakes_refused, 1u);
}

TEST(tls, TheClientChecksTheServersCertificateAndName) {
  tls_node n;
  client_options rogue{5s};
  rogue.tls = client_tls("rogue-ca.pem");
  client c(rogue);
  auto w = c.connect("127.0.0.1", n.port, "alice", "alice-token");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.err().code, errc::permission_denied);
  EXPECT_NE(w.err().message.find("certificate"), std::string::npos) << w.err().message;

  client_options misnamed{5s};
  misnamed.tls = client_tls();
  misnamed.tls_name = "broker.example.org";
  client m(misnamed);
  auto wrong_name = m.connect("127.0.0.1", n.port, "alice", "alice-token");
  ASSERT_FALSE(wrong_name);
  EXPECT_NE(wrong_name.err().message.find("certificate"), std::string::npos)
      << wrong_name.err().message;
}

TEST(tls, ATlsClientToAPlainServerFailsCleanly) {
  owner_handler h;
  server_config c;
  c.tokens = {{"alice", {"alice-token", false}}};
  threaded_server plain(c, h, 1);
  client_options o{5s};
  o.tls = client_tls();
  client cl(o);
  auto w = cl.connect("127.0.0.1", plain.local_endpoint().port(), "alice", "alice-token");
  ASSERT_FALSE(w);
  EXPECT_FALSE(cl.connected());
}

TEST(tls, ClientCertificatesMustBeSignedByTheCaAndNameTheUser) {
  tls_node n(true);
  auto as = [&](const std::string& cert, const std::string& ca, const std::string& user) {
    client_options o{5s};
    o.tls = client_tls(ca, cert);
    client c(o);
    return c.connect("127.0.0.1", n.port, user, user + "-token");
  };
  EXPECT_TRUE(as("alice", "ca.pem", "alice"));
  auto as_bob = as("alice", "ca.pem", "bob");  // bob's token, alice's certificate
  ASSERT_FALSE(as_bob);
  EXPECT_EQ(as_bob.err().code, errc::permission_denied);
  EXPECT_NE(as_bob.err().message.find("not bob's"), std::string::npos) << as_bob.err().message;
  // No certificate, or one signed by another CA: under TLS 1.3 the client learns it at its
  // first read, which still says it is about certificates.
  for (const char* cert : {"", "rogue-alice"}) {
    auto refused = as(cert, "ca.pem", "alice");
    ASSERT_FALSE(refused) << cert;
    EXPECT_EQ(refused.err().code, errc::permission_denied) << refused.err().message;
    EXPECT_NE(refused.err().message.find("certificate"), std::string::npos)
        << refused.err().message;
  }
  EXPECT_TRUE(as("bob", "ca.pem", "bob"));
  EXPECT_EQ(n.srv->counters().handshakes_refused, 3u);
}

// A connection that never starts its TLS handshake holds nothing past the deadline and
// delays no one meanwhile.
TEST(tls, AHalfOpenConnectionIsCutAtTheHandshakeDeadline) {
  tls_node n(false, 200ms);
  client raw(client_options{5s});
  ASSERT_TRUE(raw.open("127.0.0.1", n.port));  // plain TCP: no ClientHello ever
  client_options o{5s};
  o.tls = client_tls();
  client good(o);
  ASSERT_TRUE(good.connect("127.0.0.1", n.port, "alice", "alice-token"));
  ASSERT_TRUE(good.call(msg::list_request{}));
  auto frame = raw.read_frame();  // the server closes it: no frame, no hang
  EXPECT_FALSE(frame);
  EXPECT_NE(frame.err().message.find("closed"), std::string::npos) << frame.err().message;
  const auto reasons = n.reasons();
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("no TLS handshake within the deadline"), std::string::npos)
      << reasons[0];
}

TEST(tls, BadFilesAreClearErrors) {
  auto missing = make_server_tls({"/nonexistent/server.pem", file("server.key")});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.err().code, errc::invalid_parameter);
  EXPECT_NE(missing.err().message.find("/nonexistent/server.pem"), std::string::npos);
  auto mismatch = make_server_tls({file("server.pem"), file("alice.key")});
  ASSERT_FALSE(mismatch);
  EXPECT_NE(mismatch.err().message.find("alice.key"), std::string::npos) << mismatch.err().message;
  EXPECT_NE(mismatch.err().message.find("mismatch"), std::string::npos) << mismatch.err().message;
  EXPECT_FALSE(make_server_tls({file("server.pem"), ""}));
  EXPECT_FALSE(make_server_tls({file("server.pem"), file("server.key"), "/nonexistent/ca.pem"}));
  EXPECT_FALSE(make_client_tls({""}));
  EXPECT_FALSE(make_client_tls({file("server.key")}));  // a key is no CA
  EXPECT_FALSE(make_client_tls({file("ca.pem"), file("alice.pem"), ""}));
}

}  // namespace
}  // namespace arbroker::api
