// A Kokkos Tools library for finding where a command's host time goes (no Nsight Systems on the
// GPU machine). Load it with KOKKOS_PROFILE_LIBRARY (Kokkos 3) or KOKKOS_TOOLS_LIBS (Kokkos 4+):
//
//   KOKKOS_PROFILE_LIBRARY=libgigaseg_kokkos_trace.so gigaseg batch --sequential ...
//
// At exit it prints to stderr, per name: how many times, and the host time summed from begin to
// end (kernel launches return at once on CUDA; fences, deep copies and allocations show their
// waits); then the longest host gaps between one Kokkos event and the next, which is where host
// code and non-Kokkos CUDA calls spend time. KOKKOS_TRACE_TOP=N sets how many rows (default 25).
// Host only: no Kokkos or CUDA headers, the C interface's types are repeated here.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
struct SpaceHandle {
  char name[64];
};

struct Totals {
  std::uint64_t count = 0;
  double us = 0, max_us = 0;
};

struct Open {
  std::string name;
  Clock::time_point start;
};

std::mutex mutex;
std::map<std::string, Totals> totals;
std::map<std::uint64_t, Open> open;
std::uint64_t next_id = 1;
std::vector<Open> copies;  // deep copies in flight (no id in the interface)
Clock::time_point last_event = Clock::now();
std::string last_name = "start";
struct Gap {
  double us;
  std::string before, after;
};
std::vector<Gap> gaps;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

void note_event(std::string const& name, Clock::time_point now) {
  double const gap = us_between(last_event, now);
  if (gap > 50) gaps.push_back({gap, last_name, name});
  last_event = now;
  last_name = name;
}

void begin(std::string name, std::uint64_t* id) {
  auto const now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  note_event("begin " + name, now);
  *id = next_id++;
  open[*id] = {std::move(name), now};
}

void end(std::uint64_t id) {
  auto const now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  auto const found = open.find(id);
  if (found == open.end()) return;
  Totals& t = totals[found->second.name];
  double const us = us_between(found->second.start, now);
  ++t.count;
  t.us += us;
  t.max_us = std::max(t.max_us, us);
  note_event("end " + found->second.name, now);
  open.erase(found);
}

}  // namespace

extern "C" {

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}

void kokkosp_begin_parallel_for(char const* name, std::uint32_t, std::uint64_t* id) {
  begin(std::string("for ") + name, id);
}
void kokkosp_end_parallel_for(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_reduce(char const* name, std::uint32_t, std::uint64_t* id) {
  begin(std::string("reduce ") + name, id);
}
void kokkosp_end_parallel_reduce(std::uint64_t id) { end(id); }
void kokkosp_begin_parallel_scan(char const* name, std::uint32_t, std::uint64_t* id) {
  begin(std::string("scan ") + name, id);
}
void kokkosp_end_parallel_scan(std::uint64_t id) { end(id); }
void kokkosp_begin_fence(char const* name, std::uint32_t, std::uint64_t* id) {
  begin(std::string("fence ") + name, id);
}
void kokkosp_end_fence(std::uint64_t id) { end(id); }

void kokkosp_allocate_data(SpaceHandle space, char const* name, void const*, std::uint64_t) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string const key = std::string("allocate ") + space.name + " " + name;
  ++totals[key].count;
  note_event(key, Clock::now());
}
void kokkosp_deallocate_data(SpaceHandle space, char const* name, void const*, std::uint64_t) {
  std::lock_guard<std::mutex> lock(mutex);
  std::string const key = std::string("free ") + space.name + " " + name;
  ++totals[key].count;
  note_event(key, Clock::now());
}

void kokkosp_begin_deep_copy(SpaceHandle dst_space, char const* dst, void const*, SpaceHandle src_space,
                             char const* src, void const*, std::uint64_t) {
  auto const now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  std::string name = std::string("copy ") + src_space.name + " " + src + " -> " + dst_space.name + " " + dst;
  note_event("begin " + name, now);
  copies.push_back({std::move(name), now});
}
void kokkosp_end_deep_copy() {
  auto const now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex);
  if (copies.empty()) return;
  Open const o = copies.back();
  copies.pop_back();
  Totals& t = totals[o.name];
  double const us = us_between(o.start, now);
  ++t.count;
  t.us += us;
  t.max_us = std::max(t.max_us, us);
  note_event("end " + o.name, now);
}

void kokkosp_finalize_library() {
  std::lock_guard<std::mutex> lock(mutex);
  std::size_t top = 25;
  if (char const* env = std::getenv("KOKKOS_TRACE_TOP")) top = std::size_t(std::max(1, std::atoi(env)));
  std::vector<std::pair<std::string, Totals>> rows(totals.begin(), totals.end());
  std::sort(rows.begin(), rows.end(), [](auto const& a, auto const& b) { return a.second.us > b.second.us; });
  std::fprintf(stderr, "== kokkos_trace: host time from begin to end, by name (top %zu)\n%12s %8s %10s  %s\n", top,
               "total ms", "count", "max ms", "name");
  for (std::size_t i = 0; i < rows.size() && i < top; ++i)
    std::fprintf(stderr, "%12.3f %8llu %10.3f  %.150s\n", rows[i].second.us / 1e3,
                 (unsigned long long)rows[i].second.count, rows[i].second.max_us / 1e3, rows[i].first.c_str());
  // Gaps summed by the pair of events around them.
  std::map<std::string, Totals> by_pair;
  for (auto const& g : gaps) {
    Totals& t = by_pair[g.before.substr(0, 90) + "  =>  " + g.after.substr(0, 90)];
    ++t.count;
    t.us += g.us;
    t.max_us = std::max(t.max_us, g.us);
  }
  std::vector<std::pair<std::string, Totals>> pairs(by_pair.begin(), by_pair.end());
  std::sort(pairs.begin(), pairs.end(), [](auto const& a, auto const& b) { return a.second.us > b.second.us; });
  std::fprintf(stderr,
               "== kokkos_trace: host gaps over 50 us between Kokkos events, summed by the events around them\n");
  for (std::size_t i = 0; i < pairs.size() && i < top; ++i)
    std::fprintf(stderr, "%12.3f %8llu %10.3f  %s\n", pairs[i].second.us / 1e3,
                 (unsigned long long)pairs[i].second.count, pairs[i].second.max_us / 1e3, pairs[i].first.c_str());
}

}  // extern "C"
