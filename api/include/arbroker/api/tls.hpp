#pragma once

// TLS for the API (Boost.Asio's ssl over OpenSSL): the contexts a server and a client use,
// made from PEM files, with errors as results. TLS 1.2 at least.

#include <memory>
#include <string>

#include "arbroker/core/error.hpp"

namespace boost::asio::ssl {
class context;
}
struct ssl_st;  // OpenSSL's SSL

namespace arbroker::api {

struct tls_server_files {
  std::string certificate;  ///< PEM chain: the node's certificate first
  std::string private_key;  ///< PEM, unencrypted (readable by arbd only)
  /// PEM CA(s). When set, a client must present a certificate they signed, and its common
  /// name must be the user it logs in as (server_config::client_cert_is_user).
  std::string client_ca = {};
};

struct tls_client_files {
  std::string ca;  ///< PEM CA(s) the server's certificate must chain to; its name is checked
  std::string certificate = {};  ///< optional client certificate (PEM chain) ...
  std::string private_key = {};  ///< ... and its key
};

using tls_context = std::shared_ptr<boost::asio::ssl::context>;

/// invalid_parameter naming the file and OpenSSL's reason for a file that cannot be read, a
/// key that does not match its certificate, or a certificate without its key.
result<tls_context> make_server_tls(const tls_server_files& files);
result<tls_context> make_client_tls(const tls_client_files& files);

/// The common name in the subject of the peer's (verified) certificate of a TLS connection;
/// "" without one.
std::string peer_common_name(ssl_st* ssl);

}  // namespace arbroker::api
