#pragma once

// An SQLite VFS for tests that forwards everything to the system's VFS and records, per file,
// how many writes have not been synced yet and how many syncs there were: what a power cut
// would lose at any moment. A hook runs inside every sync (to hold a sync while other writers
// queue). Register once with `recording_vfs::instance()`; open databases with
// `recording_vfs::name`.

#include <sqlite3.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace arbroker::testing {

class recording_vfs {
 public:
  static constexpr const char* name = "arb-recording";

  struct file_counts {
    int unsynced_writes = 0;  ///< xWrite calls since the last xSync
    int syncs = 0;
  };

  static recording_vfs& instance() {
    static recording_vfs v;
    return v;
  }

  /// Counts of the file whose path ends with `suffix` (e.g. "arb.db-wal"); zeros if none.
  file_counts counts(const std::string& suffix) const {
    std::lock_guard lock{mu_};
    for (const auto& [path, c] : files_)
      if (path.size() >= suffix.size() &&
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
        return c;
    return {};
  }

  /// While set, every sync fails (SQLITE_IOERR_FSYNC) without reaching the disk: a dying disk.
  void fail_syncs(bool fail) {
    std::lock_guard lock{mu_};
    fail_syncs_ = fail;
  }

  /// Runs inside every sync, before the real one, with the file's path (nullptr: nothing).
  void on_sync(std::function<void(const std::string&)> hook) {
    std::lock_guard lock{mu_};
    hook_ = std::move(hook);
  }

 private:
  struct file {
    sqlite3_file base;  // must be first: SQLite sees this
    std::string* path;  // owned, deleted on close
    sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
  };

  recording_vfs() {
    real_ = sqlite3_vfs_find(nullptr);
    std::memcpy(&vfs_, real_, sizeof vfs_);
    vfs_.zName = name;
    vfs_.pNext = nullptr;
    vfs_.szOsFile = static_cast<int>(sizeof(file)) + real_->szOsFile;
    vfs_.xOpen = &open;
    sqlite3_vfs_register(&vfs_, 0);
  }

  static file* self(sqlite3_file* f) { return reinterpret_cast<file*>(f); }
  static sqlite3_file* real(sqlite3_file* f) { return self(f)->real(); }

  static int open(sqlite3_vfs*, const char* path, sqlite3_file* f, int flags, int* out_flags) {
    auto& v = instance();
    auto* sf = self(f);
    sf->base.pMethods = nullptr;
    sf->path = nullptr;
    const int rc = v.real_->xOpen(v.real_, path, sf->real(), flags, out_flags);
    if (rc != SQLITE_OK) return rc;
    sf->path = new std::string(path ? path : "");
    v.methods_.iVersion = sf->real()->pMethods->iVersion;
    sf->base.pMethods = &v.methods_;
    return SQLITE_OK;
  }

  // Records a write or a sync; false: the sync is to fail.
  bool record(sqlite3_file* f, bool sync) {
    std::function<void(const std::string&)> hook;
    {
      std::lock_guard lock{mu_};
      if (sync && fail_syncs_) return false;
      auto& c = files_[*self(f)->path];
      if (sync) {
        c.unsynced_writes = 0;
        ++c.syncs;
        hook = hook_;
      } else {
        ++c.unsynced_writes;
      }
    }
    if (hook) hook(*self(f)->path);
    return true;
  }

  // Every method forwards to the real file; xWrite and xSync also record.
  static sqlite3_io_methods make_methods() {
    sqlite3_io_methods m{};
    m.xClose = [](sqlite3_file* f) {
      const int rc = real(f)->pMethods->xClose(real(f));
      delete self(f)->path;
      return rc;
    };
    m.xRead = [](sqlite3_file* f, void* p, int n, sqlite3_int64 o) {
      return real(f)->pMethods->xRead(real(f), p, n, o);
    };
    m.xWrite = [](sqlite3_file* f, const void* p, int n, sqlite3_int64 o) {
      const int rc = real(f)->pMethods->xWrite(real(f), p, n, o);
      instance().record(f, false);
      return rc;
    };
    m.xTruncate = [](sqlite3_file* f, sqlite3_int64 s) {
      return real(f)->pMethods->xTruncate(real(f), s);
    };
    m.xSync = [](sqlite3_file* f, int flags) {
      // Recorded before the real sync: a reply that leaves during it would see the write as
      // synced, but the writer is still inside the sync, so no reply can leave.
      if (!instance().record(f, true)) return SQLITE_IOERR_FSYNC;
      return real(f)->pMethods->xSync(real(f), flags);
    };
    m.xFileSize = [](sqlite3_file* f, sqlite3_int64* s) {
      return real(f)->pMethods->xFileSize(real(f), s);
    };
    m.xLock = [](sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); };
    m.xUnlock = [](sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); };
    m.xCheckReservedLock = [](sqlite3_file* f, int* r) {
      return real(f)->pMethods->xCheckReservedLock(real(f), r);
    };
    m.xFileControl = [](sqlite3_file* f, int op, void* a) {
      return real(f)->pMethods->xFileControl(real(f), op, a);
    };
    m.xSectorSize = [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); };
    m.xDeviceCharacteristics = [](sqlite3_file* f) {
      return real(f)->pMethods->xDeviceCharacteristics(real(f));
    };
    m.xShmMap = [](sqlite3_file* f, int i, int sz, int ext, void volatile** p) {
      return real(f)->pMethods->xShmMap(real(f), i, sz, ext, p);
    };
    m.xShmLock = [](sqlite3_file* f, int o, int n, int fl) {
      return real(f)->pMethods->xShmLock(real(f), o, n, fl);
    };
    m.xShmBarrier = [](sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); };
    m.xShmUnmap = [](sqlite3_file* f, int d) { return real(f)->pMethods->xShmUnmap(real(f), d); };
    m.xFetch = [](sqlite3_file* f, sqlite3_int64 o, int n, void** p) {
      return real(f)->pMethods->xFetch(real(f), o, n, p);
    };
    m.xUnfetch = [](sqlite3_file* f, sqlite3_int64 o, void* p) {
      return real(f)->pMethods->xUnfetch(real(f), o, p);
    };
    return m;
  }

  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  sqlite3_io_methods methods_ = make_methods();
  mutable std::mutex mu_;
  std::map<std::string, file_counts> files_;
  std::function<void(const std::string&)> hook_;
  bool fail_syncs_ = false;
};

/// Holds every sync of one file, from construction until open(), and tells when one waits
/// there: what a disk slow to sync looks like to the code above it. Opens when destroyed,
/// whatever happened.
class sync_gate {
 public:
  explicit sync_gate(std::string path) : state_(std::make_shared<state>()) {
    recording_vfs::instance().on_sync([s = state_, path = std::move(path)](const std::string& p) {
      if (p != path) return;
      std::unique_lock lock{s->mu};
      s->held = true;
      s->cv.notify_all();
      s->cv.wait(lock, [&] { return s->open; });
    });
  }
  ~sync_gate() {
    open();
    recording_vfs::instance().on_sync(nullptr);
  }
  sync_gate(const sync_gate&) = delete;
  sync_gate& operator=(const sync_gate&) = delete;

  /// Whether a sync reached the gate within `limit` (a deadline, not a delay: code that
  /// never syncs would otherwise hang the test).
  bool wait_held(std::chrono::seconds limit = std::chrono::seconds(30)) {
    std::unique_lock lock{state_->mu};
    return state_->cv.wait_for(lock, limit, [&] { return state_->held; });
  }
  void open() {
    {
      std::lock_guard lock{state_->mu};
      state_->open = true;
    }
    state_->cv.notify_all();
  }

 private:
  struct state {
    std::mutex mu;
    std::condition_variable cv;
    bool held = false;
    bool open = false;
  };
  std::shared_ptr<state> state_;  // shared with the hook, which may outlive this
};

}  // namespace arbroker::testing
