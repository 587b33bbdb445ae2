// Which store a node's `[node] store` names, opened.
#include <algorithm>

#include "arbroker/store/sqlite_journal.hpp"
#include "arbroker/store/store.hpp"
#if ARB_HAVE_POSTGRESQL
#include "arbroker/store/postgresql_journal.hpp"
#endif

namespace arbroker {

const char* const no_postgresql =
    "this build has no PostgreSQL store (built without libpq: scripts/setup.sh installs "
    "libpq-dev; then build again)";

bool is_postgresql_uri(const std::string& where) noexcept {
  return where.starts_with("postgresql://") || where.starts_with("postgres://");
}

bool postgresql_store_built() noexcept {
  return ARB_HAVE_POSTGRESQL != 0;
}

std::string redact_uri(const std::string& where) {
  if (!is_postgresql_uri(where)) return where;
  std::string out = where;
  // scheme://[user[:password]@]host...: the password is between the first ':' after the
  // scheme and the '@' of the authority.
  const auto auth = out.find("://") + 3;
  const auto at = out.find('@', auth);
  const auto slash = out.find('/', auth);
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
    const auto colon = out.find(':', auth);
    if (colon != std::string::npos && colon < at)
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
  }
  // ...?password=...&...
  for (auto p = out.find("password=", auth); p != std::string::npos;
       p = out.find("password=", p + 1)) {
    if (out[p - 1] != '?' && out[p - 1] != '&') continue;
    const auto begin = p + 9;
    const auto end = std::min(out.find('&', begin), out.size());
    out = out.substr(0, begin) + "***" + out.substr(end);
  }
  return out;
}

result<std::unique_ptr<node_store>> open_store(const std::string& where, journal_options options) {
  if (is_postgresql_uri(where)) {
#if ARB_HAVE_POSTGRESQL
    auto j = postgresql_journal::open(where, options.sync, options.lease_epoch);
    if (!j) return j.err();
    return std::unique_ptr<node_store>(std::move(*j));
#else
    return fail(errc::invalid_parameter, "store " + redact_uri(where) + ": " + no_postgresql);
#endif
  }
  if (options.lease_epoch != 0)
    return fail(
        errc::invalid_parameter,
        "store " + where + ": a lease needs a PostgreSQL store (an SQLite file has one node)");
  auto j = sqlite_journal::open(where, std::move(options));
  if (!j) return j.err();
  return std::unique_ptr<node_store>(std::move(*j));
}

}  // namespace arbroker
