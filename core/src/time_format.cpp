#include "arbroker/core/time_format.hpp"

#include <cctype>
#include <cstdio>

namespace arbroker {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Reads exactly `width` digits at `pos`; -1 when they are not there.
int fixed_digits(std::string_view s, std::size_t pos, std::size_t width) {
  if (pos + width > s.size()) return -1;
  int v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (!is_digit(s[i])) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Days from 1970-01-01 to a civil date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

error bad_time(std::string_view text, const char* why) {
  return fail(errc::invalid_parameter,
              "cannot read time '" + std::string(text) + "': " + why +
                  " (use now, now+1h, epoch seconds or ISO 8601 like 2026-11-23T06:00:00Z)");
}

result<timestamp> parse_iso8601(std::string_view s) {
  const int year = fixed_digits(s, 0, 4);
  const int month = fixed_digits(s, 5, 2);
  const int day = fixed_digits(s, 8, 2);
  if (year < 0 || month < 0 || day < 0 || s[4] != '-' || s[7] != '-')
    return bad_time(s, "expected YYYY-MM-DD");
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
    return bad_time(s, "no such date");
  int hour = 0, minute = 0, second = 0;
  std::size_t pos = 10;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return bad_time(s, "expected 'T'");
    hour = fixed_digits(s, pos + 1, 2);
    minute = fixed_digits(s, pos + 4, 2);
    if (hour < 0 || minute < 0 || pos + 3 >= s.size() || s[pos + 3] != ':')
      return bad_time(s, "expected hh:mm");
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      second = fixed_digits(s, pos + 1, 2);
      if (second < 0) return bad_time(s, "expected seconds after ':'");
      pos += 3;
    }
    if (hour > 23 || minute > 59 || second > 59) return bad_time(s, "time of day out of range");
    if (pos >= s.size()) return bad_time(s, "missing time zone ('Z' or +hh:mm)");
  }
  std::int64_t offset = 0;
  if (pos < s.size()) {
    if ((s[pos] == 'Z' || s[pos] == 'z') && pos + 1 == s.size()) {
      offset = 0;
    } else if ((s[pos] == '+' || s[pos] == '-') && pos + 6 == s.size() && s[pos + 3] == ':') {
      const int oh = fixed_digits(s, pos + 1, 2);
      const int om = fixed_digits(s, pos + 4, 2);
      if (oh < 0 || om < 0 || oh > 23 || om > 59) return bad_time(s, "bad UTC offset");
      offset = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    } else {
      return bad_time(s, "bad time zone");
    }
  }
  return utc_timestamp(year, month, day, hour, minute, second) - offset;
}

}  // namespace

timestamp utc_timestamp(int year, int month, int day, int hour, int minute, int second) {
  return days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) *
             seconds_per_day +
         hour * 3600 + minute * 60 + second;
}

result<duration> parse_duration(std::string_view text) {
  auto s = trim(text);
  auto bad = [&](const char* why) {
    return fail(errc::invalid_duration, "cannot read duration '" + std::string(text) + "': " + why +
                                            " (use e.g. 90, 45s, 15m, 2h, 1h30m, 1d)");
  };
  if (s.empty()) return bad("empty");
  if (s.front() == '-') return bad("negative");
  duration total = 0;
  std::size_t pos = 0;
  bool units_seen = false;
  while (pos < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[pos]))) {
      ++pos;
      continue;
    }
    if (!is_digit(s[pos])) return bad("expected a number");
    duration value = 0;
    while (pos < s.size() && is_digit(s[pos])) {
      if (value > time_infinity / 10) return bad("too long");
      value = value * 10 + (s[pos++] - '0');
    }
    duration unit = 1;
    if (pos < s.size() && !std::isspace(static_cast<unsigned char>(s[pos]))) {
      switch (s[pos++]) {
        case 'd':
          unit = seconds_per_day;
          break;
        case 'h':
          unit = seconds_per_hour;
          break;
        case 'm':
          unit = 60;
          break;
        case 's':
          unit = 1;
          break;
        default:
          return bad("unknown unit");
      }
      units_seen = true;
    } else if (units_seen || pos < s.size()) {
      return bad("a number without unit must stand alone");
    }
    if (value > (time_infinity - total) / unit) return bad("too long");
    total += value * unit;
  }
  return total;
}

std::string format_duration(duration d) {
  if (d == 0) return "0s";
  std::string out;
  if (d < 0) {
    out = "-";
    d = -d;
  }
  const std::pair<duration, char> units[] = {
      {seconds_per_day, 'd'}, {seconds_per_hour, 'h'}, {60, 'm'}, {1, 's'}};
  for (auto [size, name] : units) {
    if (d >= size) {
      out += std::to_string(d / size);
      out += name;
      d %= size;
    }
  }
  return out;
}

result<timestamp> parse_time(std::string_view text, timestamp now) {
  auto s = trim(text);
  if (s.empty()) return bad_time(text, "empty");
  if (s.substr(0, 3) == "now") {
    auto rest = trim(s.substr(3));
    if (rest.empty()) return now;
    if (rest.front() != '+' && rest.front() != '-')
      return bad_time(text, "expected now+D or now-D");
    auto d = parse_duration(rest.substr(1));
    if (!d) return bad_time(text, "bad offset after 'now'");
    return rest.front() == '+' ? now + *d : now - *d;
  }
  if (s.size() >= 10 && s[4] == '-') return parse_iso8601(s);
  bool all_digits = true;
  for (char c : s)
    all_digits = all_digits && is_digit(c);
  if (all_digits && s.size() <= 15) return static_cast<timestamp>(std::stoll(std::string(s)));
  return bad_time(text, "unrecognised form");
}

std::string format_time(timestamp t) {
  std::int64_t days = t / seconds_per_day;
  std::int64_t secs = t % seconds_per_day;
  if (secs < 0) {
    secs += seconds_per_day;
    --days;
  }
  // civil_from_days (H. Hinnant)
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  return buf;
}

}  // namespace arbroker
