#include "arbroker/messages/speedup_spec.hpp"

#include <string>

namespace arbroker::msg {

std::string_view to_string(speedup_kind k) noexcept {
  switch (k) {
    case speedup_kind::amdahl:
      return "amdahl";
    case speedup_kind::downey:
      return "downey";
    case speedup_kind::table:
      return "table";
  }
  return "unknown";
}

speedup_spec to_spec(const speedup_model& m) {
  speedup_spec s;
  std::visit(
      [&s](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, amdahl_model>) {
          s.kind = speedup_kind::amdahl;
          s.p1 = x.seq;
        } else if constexpr (std::is_same_v<T, downey_model>) {
          s.kind = speedup_kind::downey;
          s.p1 = x.a;
          s.p2 = x.sigma;
        } else {
          s.kind = speedup_kind::table;
          for (const auto& p : x.points) {
            s.table_n.push_back(p.n);
            s.table_speedup.push_back(p.speedup);
          }
        }
      },
      m.model());
  return s;
}

result<speedup_model> to_model(const speedup_spec& s) {
  switch (s.kind) {
    case speedup_kind::amdahl:
      return speedup_model::amdahl(s.p1);
    case speedup_kind::downey:
      return speedup_model::downey(s.p1, s.p2);
    case speedup_kind::table: {
      if (s.table_n.size() != s.table_speedup.size())
        return fail(errc::invalid_speedup_model,
                    "table: " + std::to_string(s.table_n.size()) + " processor counts but " +
                        std::to_string(s.table_speedup.size()) + " speedups");
      std::vector<table_model::point> points;
      for (std::size_t i = 0; i < s.table_n.size(); ++i)
        points.push_back({s.table_n[i], s.table_speedup[i]});
      return speedup_model::table(std::move(points));
    }
    default:
      return fail(errc::invalid_speedup_model,
                  "unknown speedup model kind " + std::to_string(static_cast<int>(s.kind)));
  }
}

}  // namespace arbroker::msg
