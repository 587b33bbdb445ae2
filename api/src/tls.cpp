#include "arbroker/api/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>

namespace arbroker::api {

namespace ssl = boost::asio::ssl;

namespace {

// OpenSSL's reason for the last failure, and its error queue emptied.
std::string openssl_reason() {
  std::string out;
  while (const unsigned long e = ::ERR_get_error()) {
    char buf[256];
    ::ERR_error_string_n(e, buf, sizeof buf);
    out = buf;  // the last is the most specific
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

error bad_file(const std::string& what, const std::string& path, const std::string& why) {
  return fail(errc::invalid_parameter, what + " '" + path + "': " + why);
}

result<tls_context> base(ssl::context::method m) {
  auto ctx = std::make_shared<ssl::context>(m);
  // TLS 1.2 and 1.3 only; no compression (CRIME), no renegotiation.
  if (::SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION) != 1)
    return fail(errc::internal, "TLS: " + openssl_reason());
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression |
                   SSL_OP_NO_RENEGOTIATION);
  return ctx;
}

status load_identity(ssl::context& ctx, const std::string& cert, const std::string& key) {
  if (cert.empty() != key.empty())
    return fail(errc::invalid_parameter, "TLS: a certificate needs its private key and vice versa");
  if (cert.empty()) return {};
  if (::SSL_CTX_use_certificate_chain_file(ctx.native_handle(), cert.c_str()) != 1)
    return bad_file("TLS certificate", cert, openssl_reason());
  if (::SSL_CTX_use_PrivateKey_file(ctx.native_handle(), key.c_str(), SSL_FILETYPE_PEM) != 1)
    return bad_file("TLS private key", key, openssl_reason());
  if (::SSL_CTX_check_private_key(ctx.native_handle()) != 1)
    return bad_file("TLS private key", key, "does not match the certificate " + cert);
  return {};
}

status load_ca(ssl::context& ctx, const std::string& what, const std::string& path) {
  if (::SSL_CTX_load_verify_locations(ctx.native_handle(), path.c_str(), nullptr) != 1)
    return bad_file(what, path, openssl_reason());
  return {};
}

}  // namespace

result<tls_context> make_server_tls(const tls_server_files& files) {
  if (files.certificate.empty())
    return fail(errc::invalid_parameter, "TLS: a server needs a certificate and its key");
  auto ctx = base(ssl::context::tls_server);
  if (!ctx) return ctx;
  if (auto s = load_identity(**ctx, files.certificate, files.private_key); !s) return s.err();
  if (!files.client_ca.empty()) {
    if (auto s = load_ca(**ctx, "TLS client CA", files.client_ca); !s) return s.err();
    // The CAs' names go into the certificate request, so that a client picks the right one.
    STACK_OF(X509_NAME)* names = ::SSL_load_client_CA_file(files.client_ca.c_str());
    if (names) ::SSL_CTX_set_client_CA_list((*ctx)->native_handle(), names);
    (*ctx)->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
  }
  return ctx;
}

result<tls_context> make_client_tls(const tls_client_files& files) {
  if (files.ca.empty())
    return fail(errc::invalid_parameter, "TLS: a client needs the CA of the server's certificate");
  auto ctx = base(ssl::context::tls_client);
  if (!ctx) return ctx;
  if (auto s = load_ca(**ctx, "TLS CA", files.ca); !s) return s.err();
  if (auto s = load_identity(**ctx, files.certificate, files.private_key); !s) return s.err();
  (*ctx)->set_verify_mode(ssl::verify_peer);
  return ctx;
}

std::string peer_common_name(ssl_st* ssl) {
  X509* cert = ::SSL_get_peer_certificate(ssl);
  if (!cert) return {};
  std::string out;
  X509_NAME* subject = ::X509_get_subject_name(cert);
  const int at = subject ? ::X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
  if (at >= 0) {
    ASN1_STRING* data = ::X509_NAME_ENTRY_get_data(::X509_NAME_get_entry(subject, at));
    unsigned char* utf8 = nullptr;
    const int n = ::ASN1_STRING_to_UTF8(&utf8, data);
    if (n > 0) out.assign(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(n));
    ::OPENSSL_free(utf8);
  }
  ::X509_free(cert);
  return out;
}

}  // namespace arbroker::api
