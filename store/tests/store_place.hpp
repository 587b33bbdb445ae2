#pragma once

// Where a test's store lives, for the tests a backend shares (journal_contract.hpp) and its
// own.

#include <functional>
#include <memory>
#include <string>

namespace arbroker::testing {

/// Where one test's store lives; removed with it.
class store_place {
 public:
  virtual ~store_place() = default;
  /// What open_store() is given.
  virtual std::string where() const = 0;
  /// Marks the store as written by a build of schema `version` (a later build's).
  virtual void set_schema_version(int version) = 0;
};

struct store_backend {
  std::string name;
  std::function<std::unique_ptr<store_place>()> fresh;
};

}  // namespace arbroker::testing
