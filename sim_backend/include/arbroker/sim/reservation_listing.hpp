#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arbroker/core/time.hpp"

namespace arbroker {

/// The live reservations of a simulated LRMS as it lists them, in copy-on-write chunks, so
/// that a snapshot can be begun on the owner's thread without copying them: take() shares
/// the chunks (O(n / chunk_rows) pointers), and the owner's next change to a shared chunk
/// copies that chunk alone (O(chunk_rows)), leaving what was taken as it was. What was taken
/// may be read on another thread while the owner goes on changing the listing. Rows have no
/// order; a row's slot is stable until remove() moves the last row into the slot it frees.
class reservation_listing {
 public:
  struct row {
    std::uint64_t rid = 0;  ///< the n of "R<n>"
    timestamp start = 0;
    timestamp end = 0;
    int np = 0;
    std::string name, owner, account;
  };
  static constexpr std::size_t chunk_rows = 1024;
  using chunk = std::vector<row>;
  /// A listing as it was when taken: every row of every chunk.
  using taken = std::vector<std::shared_ptr<const chunk>>;
  using slot = std::size_t;

  /// Adds a row; where it is. O(1), plus a copy of the last chunk if it is shared.
  slot add(row r);
  /// Removes the row at `s` by moving the last row into it: that row's rid (it is at `s`
  /// now), or nothing when the last row was the one removed.
  std::optional<std::uint64_t> remove(slot s);
  void set_end(slot s, timestamp end);
  const row& at(slot s) const { return (*chunks_[s / chunk_rows])[s % chunk_rows]; }
  std::size_t size() const noexcept { return size_; }

  taken take() const;

 private:
  /// The chunk of `s`, copied first if a taken listing shares it.
  row& writable(slot s);

  std::vector<std::shared_ptr<chunk>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace arbroker
