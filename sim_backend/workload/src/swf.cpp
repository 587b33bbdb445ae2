#include "arbroker/sim/swf.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <istream>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <system_error>
#include <utility>

namespace arbroker::sim {

std::int64_t procs(const swf_job& job) noexcept {
  if (job.requested_procs > 0) return job.requested_procs;
  return job.allocated_procs > 0 ? job.allocated_procs : swf_unknown;
}

namespace {

// ---------------------------------------------------------------------------------------
// Parsing

constexpr std::array<const char*, swf_field_count> field_names = {
    "job number",       "submit time",   "wait time",       "run time",       "allocated procs",
    "average CPU time", "used memory",   "requested procs", "requested time", "requested memory",
    "status",           "user id",       "group id",        "executable id",  "queue",
    "partition",        "preceding job", "think time"};

// Fields 6, 7 and 10 (indices 5, 6, 9) may be fractional; all others are integers.
constexpr bool is_real_field(int i) {
  return i == 5 || i == 6 || i == 9;
}

// ' ', '\t', '\v', '\f', '\r' (not '\n', which ends the line): one compare for the usual
// ' ' and a range check for the rest, as this runs for every character of a trace.
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r' && c != '\n');
}

const char* skip_space(const char* p, const char* end) {
  while (p < end && is_space(*p))
    ++p;
  return p;
}

const char* skip_token(const char* p, const char* end) {
  while (p < end && !is_space(*p))
    ++p;
  return p;
}

// The number of lines, counted with memchr (vectorized), not char by char: a whole trace
// is scanned.
std::size_t count_lines(std::string_view text) {
  std::size_t lines = 1;
  const char* p = text.data();
  const char* const end = p + text.size();
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) {
    ++lines;
    ++p;
  }
  return lines;
}

// A token for an error message, shortened if it is long.
std::string quoted(std::string_view token) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  if (token.size() > max_shown) {
    out.append(token.substr(0, max_shown));
    out += "...";
  } else {
    out.append(token);
  }
  out += "'";
  return out;
}

// The fields of a trace are short integers ("-1", "1024"). libstdc++ 12's from_chars spends
// about 85 instructions on each (it guards every digit against overflow, and a trace has 18
// fields a line); an optional '-' and at most 18 digits cannot overflow, so the usual record
// is read with this. Anything else (no digit, 19 digits or more, a '.', an 'e') makes the
// record go field by field through from_chars, which decides and explains. On success
// tok_end is the end of the token.
bool short_integer(const char* p, const char* end, std::int64_t& v, const char*& tok_end) {
  const bool negative = p < end && *p == '-';
  const char* q = p + (negative ? 1 : 0);
  const char* const first_digit = q;
  std::uint64_t x = 0;  // unsigned: a longer number wraps harmlessly before it is refused
  while (q < end && static_cast<unsigned char>(*q - '0') < 10) {
    x = x * 10 + static_cast<unsigned char>(*q - '0');
    ++q;
  }
  if (q == first_digit || q - first_digit > 18 || (q < end && !is_space(*q))) return false;
  v = negative ? -static_cast<std::int64_t>(x) : static_cast<std::int64_t>(x);
  tok_end = q;
  return true;
}

// A real field is nearly always written as an integer ("-1", "1024"): parsed as one, it
// has the same value as parsed as a double, and parsing an integer is much cheaper.
// The token starting at p ends at the first space or at end; on success tok_end is its end.
bool is_whole(const char* p, const char* end, std::int64_t& v, const char*& tok_end) {
  auto [ptr, ec] = std::from_chars(p, end, v);
  if (ec != std::errc{} || (ptr != end && !is_space(*ptr))) return false;
  if (v == 0 && *p == '-') return false;  // "-0" is a double's -0.0
  tok_end = ptr;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

class parser {
 public:
  parser(std::string_view name, swf_read_options options) : name_(name), options_(options) {}

  result<swf_trace> parse(std::string_view text) {
    swf_trace trace;
    // One slot per line: never regrows, and overshoots only by the header lines.
    trace.jobs.reserve(count_lines(text));
    const char* p = text.data();
    const char* const end = p + text.size();
    while (p < end) {
      ++line_;
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (eol == nullptr) eol = end;
      const char* q = skip_space(p, eol);
      if (q < eol) {
        if (*q == ';') {
          const char* stop = eol;
          if (stop > p && stop[-1] == '\r') --stop;
          std::string_view line(p, stop - p);
          if (auto s = header_line(line, trace.header); !s) return s.err();
        } else {
          swf_job job;
          if (usual_record(q, eol, job)) {
            trace.jobs.push_back(job);
          } else if (auto s = record(q, eol, job); s) {
            trace.jobs.push_back(job);
          } else if (!options_.skip_bad_records) {
            return s.err();
          } else {
            auto& skipped = trace.skipped[reason_];
            if (skipped.count++ == 0) {
              skipped.first_line = line_;
              skipped.first = s.err().message;
            }
          }
        }
      }
      p = eol + 1;
    }
    return trace;
  }

 private:
  error bad(const std::string& what) const {
    std::string msg(name_);
    msg += ':';
    msg += std::to_string(line_);
    msg += ": ";
    msg += what;
    return fail(errc::invalid_parameter, std::move(msg));
  }

  static std::string field_label(int i) {
    std::string s = "field ";
    s += std::to_string(i + 1);
    s += " (";
    s += field_names[static_cast<std::size_t>(i)];
    s += ')';
    return s;
  }

  // A bad record: `reason` groups it with others like it (for the counts of skipped ones).
  error reject(std::string reason, const std::string& what) {
    reason_ = std::move(reason);
    return bad(what);
  }

  // A sound record, read in one go: 18 numbers, short integers (the real fields 6, 7 and
  // 10 may also be fractional), none negative but -1, a known job number and submit time.
  // False for anything else, which record() then reads field by field and judges (the same
  // values for every record both accept).
  static bool usual_record(const char* p, const char* end, swf_job& job) {
    std::array<std::int64_t, swf_field_count> v;  // NOLINT: all set before they are read
    std::array<double, swf_field_count> real{};   // the real fields as read
    for (int n = 0; n < swf_field_count; ++n) {
      auto& field = v[static_cast<std::size_t>(n)];
      p = skip_space(p, end);
      if (p == end) return false;
      const char* tok_end = nullptr;
      if (short_integer(p, end, field, tok_end) && (field != 0 || *p != '-')) {
        if (field < -1) return false;
        real[static_cast<std::size_t>(n)] = static_cast<double>(field);
      } else if (is_real_field(n)) {  // "12.5", "-0" (a double's -0.0), "1e3"
        double d = 0;
        auto [ptr, ec] = std::from_chars(p, end, d);
        if (ec != std::errc{} || (ptr != end && !is_space(*ptr)) || !std::isfinite(d) ||
            (d < 0.0 && d != -1.0))
          return false;
        real[static_cast<std::size_t>(n)] = d;
        tok_end = ptr;
      } else {
        return false;
      }
      p = tok_end;
    }
    if (skip_space(p, end) != end || v[0] < 0 || v[1] < 0) return false;
    job = swf_job{v[0],    v[1],  v[2],  v[3],  v[4],  real[5], real[6], v[7],  v[8],
                  real[9], v[10], v[11], v[12], v[13], v[14],   v[15],   v[16], v[17]};
    return true;
  }

  status record(const char* p, const char* end, swf_job& job) {
    std::array<std::int64_t, swf_field_count> iv{};
    std::array<double, swf_field_count> dv{};
    int n = 0;
    for (; n < swf_field_count; ++n) {
      p = skip_space(p, end);
      if (p == end) break;
      // The number's own characters end the token when it is well formed, so the token is
      // not scanned twice; only a refused one is measured, for its message.
      const auto token = [p, end] { return std::string_view(p, skip_token(p, end) - p); };
      const auto at_token_end = [end](const char* q) { return q == end || is_space(*q); };
      const char* tok_end = nullptr;
      double value = 0;
      std::int64_t whole = 0;
      if (is_real_field(n) && !is_whole(p, end, whole, tok_end)) {
        double d = 0;
        auto [ptr, ec] = std::from_chars(p, end, d);
        if (ec == std::errc::result_out_of_range)
          return reject(field_label(n) + " is not a number",
                        field_label(n) + ": " + quoted(token()) + " is out of range");
        if (ec != std::errc{} || !at_token_end(ptr) || !std::isfinite(d))
          return reject(field_label(n) + " is not a number",
                        field_label(n) + ": " + quoted(token()) + " is not a number");
        dv[static_cast<std::size_t>(n)] = d;
        value = d;
        tok_end = ptr;
      } else if (is_real_field(n)) {
        dv[static_cast<std::size_t>(n)] = static_cast<double>(whole);
        value = static_cast<double>(whole);
      } else {
        std::int64_t v = 0;
        auto [ptr, ec] = std::from_chars(p, end, v);
        if (ec == std::errc::result_out_of_range)
          return reject(field_label(n) + " is not a number",
                        field_label(n) + ": " + quoted(token()) + " is out of range");
        if (ec != std::errc{} || !at_token_end(ptr))
          return reject(field_label(n) + " is not a number",
                        field_label(n) + ": " + quoted(token()) + " is not an integer");
        iv[static_cast<std::size_t>(n)] = v;
        value = static_cast<double>(v);
        tok_end = ptr;
      }
      if (value < 0.0 && value != -1.0)
        return reject(
            field_label(n) + " is negative",
            field_label(n) + " is " + std::string(token()) + "; only -1 (unknown) may be negative");
      p = tok_end;
    }
    if (n < swf_field_count) {
      return reject("wrong number of fields", "expected " + std::to_string(swf_field_count) +
                                                  " fields, found " + std::to_string(n));
    }
    if (skip_space(p, end) != end) {
      int extra = 0;
      for (const char* q = skip_space(p, end); q < end; q = skip_space(skip_token(q, end), end))
        ++extra;
      return reject("wrong number of fields", "expected " + std::to_string(swf_field_count) +
                                                  " fields, found " +
                                                  std::to_string(swf_field_count + extra));
    }
    for (int i : {0, 1}) {
      if (iv[static_cast<std::size_t>(i)] < 0)
        return reject(std::string("unknown ") + field_names[static_cast<std::size_t>(i)],
                      field_label(i) + " is -1; a job needs a known " +
                          field_names[static_cast<std::size_t>(i)]);
    }
    job.job_id = iv[0];
    job.submit_time = iv[1];
    job.wait_time = iv[2];
    job.run_time = iv[3];
    job.allocated_procs = iv[4];
    job.avg_cpu_time = dv[5];
    job.used_memory = dv[6];
    job.requested_procs = iv[7];
    job.requested_time = iv[8];
    job.requested_memory = dv[9];
    job.status = iv[10];
    job.user_id = iv[11];
    job.group_id = iv[12];
    job.executable_id = iv[13];
    job.queue = iv[14];
    job.partition = iv[15];
    job.preceding_job = iv[16];
    job.think_time = iv[17];
    return {};
  }

  // Keeps the line and picks out "; Key: value" for the keys the simulator uses.
  status header_line(std::string_view line, swf_header& h) const {
    h.comments.emplace_back(line);
    std::string_view rest = line;
    rest.remove_prefix(rest.find(';') + 1);
    const auto colon = rest.find(':');
    if (colon == std::string_view::npos) return {};
    const std::string_view key = trim(rest.substr(0, colon));
    const std::string_view value = trim(rest.substr(colon + 1));
    std::int64_t* target = nullptr;
    if (key == "MaxProcs") {
      target = &h.max_procs;
    } else if (key == "MaxNodes") {
      target = &h.max_nodes;
    } else if (key == "UnixStartTime") {
      target = &h.unix_start_time;
    } else if (key == "TimeZoneString") {
      h.time_zone_string = std::string(value);
      return {};
    } else {
      return {};
    }
    // A leading integer; text after it ("338 (batch partition; 512 total)") is a remark.
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || (ptr != value.data() + value.size() && !is_space(*ptr)))
      return bad("header " + std::string(key) + ": " + quoted(value) + " is not an integer");
    *target = v;
    return {};
  }

  std::string_view name_;
  swf_read_options options_;
  std::size_t line_ = 0;
  std::string reason_;  // of the last record refused
};

// ---------------------------------------------------------------------------------------
// Files

std::string path_text(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

// The bytes of a file for as long as this lives: a regular file mapped read-only (the page
// cache's own pages, neither copied nor cleared: first touches of fresh memory cost more
// than parsing a short trace on a VM; docs/performance.md), anything else (a pipe) read.
class file_bytes {
 public:
  file_bytes() = default;
  file_bytes(const file_bytes&) = delete;
  file_bytes& operator=(const file_bytes&) = delete;
  file_bytes(file_bytes&& o) noexcept
      : map_(std::exchange(o.map_, nullptr)),
        map_size_(std::exchange(o.map_size_, 0)),
        read_(std::move(o.read_)) {}
  ~file_bytes() {
    if (map_ != nullptr) ::munmap(map_, map_size_);
  }

  static result<file_bytes> open(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return fail(errc::not_found, "cannot open " + path_text(path) + ": " + std::strerror(errno));
    file_bytes f;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      const auto size = static_cast<std::size_t>(st.st_size);
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        f.map_ = p;
        f.map_size_ = size;
        ::close(fd);
        return f;
      }
    }
    std::array<char, 1 << 16> buf{};
    for (;;) {
      const ssize_t got = ::read(fd, buf.data(), buf.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        const int e = errno;
        ::close(fd);
        return fail(errc::invalid_parameter,
                    "cannot read " + path_text(path) + ": " + std::strerror(e));
      }
      if (got == 0) break;
      f.read_.append(buf.data(), static_cast<std::size_t>(got));
    }
    ::close(fd);
    return f;
  }

  std::string_view bytes() const noexcept {
    return map_ != nullptr ? std::string_view(static_cast<const char*>(map_), map_size_)
                           : std::string_view(read_);
  }

 private:
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  std::string read_;  // a file that is not mapped
};

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using file_ptr = std::unique_ptr<std::FILE, file_closer>;

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && bytes[0] == '\x1f' && bytes[1] == '\x8b';
}

// The whole gzip file decompressed at once by libdeflate (about twice as fast as zlib's
// stream), given the size the trailer tells; nothing when libdeflate cannot do it alone (a
// file of several gzip members, a damaged or truncated one): then zlib reads the file and
// says what is wrong.
std::optional<std::string> inflate_whole(std::string_view compressed, std::size_t size) {
  std::string out(size, '\0');
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  if (d == nullptr) return std::nullopt;
  std::size_t used_in = 0;
  std::size_t used_out = 0;
  const auto rc = libdeflate_gzip_decompress_ex(d, compressed.data(), compressed.size(), out.data(),
                                                out.size(), &used_in, &used_out);
  libdeflate_free_decompressor(d);
  if (rc != LIBDEFLATE_SUCCESS || used_in != compressed.size() || used_out != size)
    return std::nullopt;
  return out;
}

result<std::string> read_gzip(std::string_view compressed, const std::filesystem::path& path) {
  // The gzip trailer holds the uncompressed size modulo 2^32: a good first guess for the
  // buffer, unless the file is damaged (a truncated file ends in arbitrary bytes), so it is
  // trusted only up to 64 times the compressed size (SWF text compresses about 6:1).
  std::size_t guess = 0;
  if (compressed.size() >= 4) {
    const auto* t =
        reinterpret_cast<const unsigned char*>(compressed.data() + compressed.size() - 4);
    guess = static_cast<std::size_t>(t[0]) | (static_cast<std::size_t>(t[1]) << 8) |
            (static_cast<std::size_t>(t[2]) << 16) | (static_cast<std::size_t>(t[3]) << 24);
    const std::size_t limit = 64 * compressed.size();
    if (guess > limit) {
      guess = limit / 8;
    } else if (auto whole = inflate_whole(compressed, guess)) {
      return std::move(*whole);
    }
  }
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr)
    return fail(errc::not_found, "cannot open " + path_text(path) + ": " + std::strerror(errno));
  gzbuffer(gz, 1U << 18);
  std::string data;
  std::size_t used = 0;
  data.resize(std::max<std::size_t>(guess, 1U << 20) + 1);  // +1: no second pass when exact
  for (;;) {
    if (used == data.size()) data.resize(data.size() * 2);
    const std::size_t room = std::min<std::size_t>(data.size() - used, 1U << 30);
    const int got = gzread(gz, data.data() + used, static_cast<unsigned>(room));
    if (got < 0) {
      int code = 0;
      std::string what = gzerror(gz, &code);
      gzclose(gz);
      return fail(errc::invalid_parameter, "cannot decompress " + path_text(path) + ": " + what);
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  // A truncated stream reads as a short file without an error from gzread; gzclose reports it.
  const int closed = gzclose(gz);
  if (closed != Z_OK) {
    return fail(errc::invalid_parameter,
                "cannot decompress " + path_text(path) + ": " +
                    (closed == Z_BUF_ERROR ? "truncated gzip stream" : "gzip error"));
  }
  data.resize(used);
  return data;
}

// ---------------------------------------------------------------------------------------
// Writing

void append_int(std::string& out, std::int64_t v) {
  std::array<char, 24> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), end);
}

void append_real(std::string& out, double v) {
  std::array<char, 32> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  out.append(buf.data(), end);
}

void append_header_line(std::string& out, std::string_view key, std::string_view value) {
  out += "; ";
  out += key;
  out += ": ";
  out += value;
  out += '\n';
}

}  // namespace

result<swf_trace> read_swf_string(std::string_view text, std::string_view name,
                                  swf_read_options options) {
  return parser(name, options).parse(text);
}

result<swf_trace> read_swf_stream(std::istream& in, std::string_view name) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) {
    return fail(errc::invalid_parameter, "cannot read " + std::string(name) + ": stream error");
  }
  return read_swf_string(text, name);
}

result<swf_trace> read_swf(const std::filesystem::path& path, swf_read_options options) {
  const std::string name = path.string();
  auto file = file_bytes::open(path);
  if (!file) return std::move(file).err();
  const std::string_view bytes = file->bytes();
  if (!is_gzip(bytes)) return read_swf_string(bytes, name, options);
  auto text = read_gzip(bytes, path);
  if (!text) return std::move(text).err();
  return read_swf_string(*text, name, options);
}

std::string format_swf(const swf_trace& trace) {
  std::string out;
  out.reserve(trace.jobs.size() * 72 + 1024);
  const swf_header& h = trace.header;
  if (!h.comments.empty()) {
    for (const auto& line : h.comments) {
      out += line;
      out += '\n';
    }
  } else {
    append_header_line(out, "Version", "2.2");
    if (h.unix_start_time != swf_unknown)
      append_header_line(out, "UnixStartTime", std::to_string(h.unix_start_time));
    if (!h.time_zone_string.empty()) append_header_line(out, "TimeZoneString", h.time_zone_string);
    if (h.max_nodes != swf_unknown)
      append_header_line(out, "MaxNodes", std::to_string(h.max_nodes));
    if (h.max_procs != swf_unknown)
      append_header_line(out, "MaxProcs", std::to_string(h.max_procs));
  }
  for (const swf_job& j : trace.jobs) {
    append_int(out, j.job_id);
    out += ' ';
    append_int(out, j.submit_time);
    out += ' ';
    append_int(out, j.wait_time);
    out += ' ';
    append_int(out, j.run_time);
    out += ' ';
    append_int(out, j.allocated_procs);
    out += ' ';
    append_real(out, j.avg_cpu_time);
    out += ' ';
    append_real(out, j.used_memory);
    out += ' ';
    append_int(out, j.requested_procs);
    out += ' ';
    append_int(out, j.requested_time);
    out += ' ';
    append_real(out, j.requested_memory);
    out += ' ';
    append_int(out, j.status);
    out += ' ';
    append_int(out, j.user_id);
    out += ' ';
    append_int(out, j.group_id);
    out += ' ';
    append_int(out, j.executable_id);
    out += ' ';
    append_int(out, j.queue);
    out += ' ';
    append_int(out, j.partition);
    out += ' ';
    append_int(out, j.preceding_job);
    out += ' ';
    append_int(out, j.think_time);
    out += '\n';
  }
  return out;
}

status write_swf(std::ostream& out, const swf_trace& trace) {
  const std::string text = format_swf(trace);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) return fail(errc::invalid_parameter, "cannot write the SWF text: stream error");
  return {};
}

status write_swf(const std::filesystem::path& path, const swf_trace& trace) {
  const std::string text = format_swf(trace);
  if (path.extension() == ".gz") {
    gzFile gz = gzopen(path.c_str(), "wb");
    if (gz == nullptr) {
      return fail(errc::invalid_parameter,
                  "cannot write " + path_text(path) + ": " + std::strerror(errno));
    }
    std::size_t done = 0;
    bool ok = true;
    while (ok && done < text.size()) {
      const auto chunk = static_cast<unsigned>(std::min<std::size_t>(text.size() - done, 1U << 30));
      const int put = gzwrite(gz, text.data() + done, chunk);
      ok = put > 0;
      done += ok ? static_cast<std::size_t>(put) : 0;
    }
    if (gzclose(gz) != Z_OK || !ok)
      return fail(errc::invalid_parameter, "cannot write " + path_text(path) + ": gzip error");
    return {};
  }
  file_ptr f(std::fopen(path.c_str(), "wb"));
  if (!f) {
    return fail(errc::invalid_parameter,
                "cannot write " + path_text(path) + ": " + std::strerror(errno));
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f.get()) == text.size();
  if (!ok || std::fclose(f.release()) != 0)
    return fail(errc::invalid_parameter, "cannot write " + path_text(path) + ": write error");
  return {};
}

}  // namespace arbroker::sim
