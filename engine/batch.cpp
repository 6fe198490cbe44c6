// run_batch: the reader threads, the lanes and the writer threads (batch.hpp).
#include "gigaseg/engine/batch.hpp"

#include "gigaseg/core/error.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace gigaseg {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Hands out the items as `claim` gives them (in order, or as a group's ranks take them), with
// their decoding started up to `ahead` items in advance on host threads. A decoded image the GPU
// will take is copied into pinned memory on the same thread (PinnedStaging).
class DecodeQueue {
 public:
  struct Job {
    std::size_t index;
    std::future<InputImage> image;
  };
  DecodeQueue(std::function<std::optional<std::size_t>()> claim, std::size_t ahead, BatchIO const& io,
              ExecutionContext const& context, PinnedStaging const& staging)
      : claim_(std::move(claim)), ahead_(ahead), io_(io), context_(context), staging_(staging) {}
  // Called from one thread.
  std::optional<Job> next() {
    while (!exhausted_ && pending_.size() < ahead_ + 1) {
      std::optional<std::size_t> const index = claim_();
      if (!index) {
        exhausted_ = true;
        break;
      }
      pending_.push_back(Job{*index, std::async(std::launch::async, &DecodeQueue::decode, this, *index)});
    }
    if (pending_.empty()) return std::nullopt;
    Job job = std::move(pending_.front());
    pending_.pop_front();
    return job;
  }
  double decode_ms() const { return decode_ms_.load(); }

 private:
  InputImage decode(std::size_t index) {
    auto const start = Clock::now();
    InputImage image = staging_.input(context_, io_.read(index));
    double const ms = 1e3 * seconds_since(start);
    for (double seen = decode_ms_.load(); !decode_ms_.compare_exchange_weak(seen, seen + ms);) {
    }
    return image;
  }
  std::function<std::optional<std::size_t>()> claim_;
  std::size_t const ahead_;
  BatchIO const& io_;
  ExecutionContext const& context_;
  PinnedStaging const& staging_;
  std::deque<Job> pending_;
  bool exhausted_ = false;
  std::atomic<double> decode_ms_{0};
};

// An item taken from its decoder: the pixels, or the error; seconds spent waiting.
struct Taken {
  std::size_t index;
  std::shared_ptr<InputImage> image;
  std::exception_ptr error;
  double wait_seconds = 0;
};

Taken take(DecodeQueue::Job& job) {
  Taken t{job.index, nullptr, nullptr, 0};
  auto const start = Clock::now();
  try {
    t.image = std::make_shared<InputImage>(job.image.get());
  } catch (...) {
    t.error = std::current_exception();
  }
  t.wait_seconds = seconds_since(start);
  return t;
}

}  // namespace

BatchReport run_batch(ExecutionContext const& context, PipelineParams const& params,
                      std::vector<std::string> const& names, BatchIO const& io, BatchOptions const& options) {
  GIGASEG_REQUIRE(options.lanes >= 1 && options.lanes <= 64, ErrorKind::usage, "BatchOptions::lanes",
                  "must be 1 to 64, not " + std::to_string(options.lanes));
  GIGASEG_REQUIRE(options.readers >= 0 && options.readers <= 256, ErrorKind::usage, "BatchOptions::readers",
                  "must be 0 (automatic) to 256, not " + std::to_string(options.readers));
  GIGASEG_REQUIRE(options.writers >= 0 && options.writers <= 256, ErrorKind::usage, "BatchOptions::writers",
                  "must be 0 (automatic) to 256, not " + std::to_string(options.writers));
  GIGASEG_REQUIRE(io.read && io.write, ErrorKind::usage, "BatchIO", "needs both read and write");
  BatchReport report;
  // One lane when the work stays on the host or everything is sequential.
  bool const device_possible = backend_available(Backend::cuda) &&
                               (context.requested() == Backend::automatic || context.requested() == Backend::cuda);
  std::size_t const lanes = options.sequential || !device_possible ? 1 : std::size_t(options.lanes);
  unsigned const hardware = std::max(1u, std::thread::hardware_concurrency());
  std::size_t const ahead = options.sequential    ? 0
                            : options.readers > 0 ? std::size_t(options.readers)
                                                  : std::min<std::size_t>(8, std::max(2u, hardware / 2));
  std::size_t const max_writes = options.sequential ? 1 : options.writers > 0 ? std::size_t(options.writers) : ahead;
  report.lanes = lanes;
  report.readers = ahead;
  report.writers = max_writes;

  PinnedStaging staging;
  // The items: in order, or as the group's ranks ask for them.
  std::unique_ptr<WorkCounter> counter =
      detail::group_size(options.group) > 1 ? options.group->work_counter(names.size()) : nullptr;
  std::size_t in_order = 0;
  auto claim = [&]() -> std::optional<std::size_t> {
    std::size_t const index = counter ? counter->next() : in_order++;
    if (index >= names.size()) return std::nullopt;
    ++report.items;
    return index;
  };
  DecodeQueue queue(claim, ahead, io, context, staging);
  std::vector<std::unique_ptr<DeviceLane>> lane_objects;
  for (std::size_t l = 0; l < lanes; ++l) lane_objects.push_back(std::make_unique<DeviceLane>(staging));
  std::mutex write_mutex;  // guards report.write_ms, summed by the writer threads

  auto finished = [&](BatchItem const& item) {
    (item.error ? report.failed : report.ok) += 1;
    if (io.done) io.done(item);
  };

  // Outputs being written on host threads, oldest first.
  struct Writing {
    BatchItem item;
    std::future<void> done;
  };
  std::deque<Writing> writing;
  auto finish_oldest = [&] {
    Writing w = std::move(writing.front());
    writing.pop_front();
    try {
      w.done.get();
    } catch (...) {
      w.item.error = std::current_exception();
      w.item.failed_in = "write";
      w.item.components = 0;
    }
    finished(w.item);
  };

  // Before an item is segmented on its lane, the next item, when already decoded, starts its
  // upload on the next lane, and the previous item's download is still running on its own.
  auto const batch_start = Clock::now();
  std::size_t turn = 0;
  std::optional<DecodeQueue::Job> job = queue.next();
  std::optional<Taken> early;  // the next item, taken and staged while the current one ran
  while (job || early) {
    Taken current = early ? std::move(*early) : take(*job);
    early.reset();
    DeviceLane& lane = *lane_objects[turn++ % lanes];
    job = queue.next();
    if (job && lanes > 1 && job->image.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      early = take(*job);
      job.reset();
      if (early->image) {
        try {
          report.staged_ahead += lane_objects[turn % lanes]->stage(context, params, *early->image) ? 1 : 0;
        } catch (...) {
          // Not staged: segment_image uploads it again and reports the error against its item.
        }
      }
    }
    BatchItem item;
    item.index = current.index;
    item.error = current.error;
    item.failed_in = current.error ? "read" : "";
    auto const computing = Clock::now();
    std::shared_ptr<Segmentation> result;
    if (current.image) {
      try {
        result =
            std::make_shared<Segmentation>(segment_image(context, lane, params, *current.image, names[item.index]));
        item.backend = result->backend;
        item.components = result->components();
        ++report.backends[to_string(result->backend)];
        for (auto const& [stage, ms] : result->timings_ms) report.stage_ms[stage] += ms;
      } catch (...) {
        item.error = std::current_exception();
        item.failed_in = "segment";
      }
    }
    double const seconds = seconds_since(computing);
    report.segment_ms += 1e3 * seconds;
    item.seconds = current.wait_seconds + seconds;
    if (!result) {
      finished(item);
      continue;
    }
    while (writing.size() >= max_writes) finish_oldest();
    writing.push_back(
        Writing{item, std::async(options.sequential ? std::launch::deferred : std::launch::async,
                                 [&io, &write_mutex, &report, image = current.image, result, index = item.index] {
                                   auto const begin = Clock::now();
                                   result->wait_for_labels();
                                   io.write(index, *result, image->pixels);
                                   std::lock_guard<std::mutex> lock(write_mutex);
                                   report.write_ms += 1e3 * seconds_since(begin);
                                 })});
    if (options.sequential) finish_oldest();
  }
  while (!writing.empty()) finish_oldest();
  report.seconds = seconds_since(batch_start);
  report.decode_ms = queue.decode_ms();
  return report;
}

}  // namespace gigaseg
