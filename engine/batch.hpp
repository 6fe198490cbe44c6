#pragma once
// Batch execution: one segmentation pipeline over many images, with reading, segmenting and
// writing overlapped.
//
// Reader threads decode images ahead (into pinned memory when the GPU takes them); the images go
// round `lanes` DeviceLanes (each its own CUDA stream and device images reused from one image to
// the next): the next image's upload starts on its lane before the current one is segmented on
// another, and an image's download runs on its lane while the next ones are segmented; writer
// threads encode and write the outputs meanwhile. Every Kokkos call is made from the calling
// thread (Kokkos 3.x's OpenMP backend takes work from its initial thread only), so images the
// context keeps on the host run there too. An item that fails (reading, segmenting or writing)
// is reported with its error and the others go on.
//
//   gigaseg::BatchIO io;
//   io.read = [&](std::size_t i) { return gigaseg::read_image(files[i]); };
//   io.write = [&](std::size_t i, gigaseg::Segmentation const& s, gigaseg::AnyHostImage const&) {
//     gigaseg::write_image(outputs[i], gigaseg::AnyHostImage(s.labels));
//   };
//   io.done = [&](gigaseg::BatchItem const& item) { if (item.error) ...; };
//   gigaseg::BatchReport report = gigaseg::run_batch(context, gigaseg::CellsParams{}, files, io);
#include "gigaseg/core/context.hpp"
#include "gigaseg/core/io/image_file.hpp"
#include "gigaseg/engine/process_group.hpp"
#include "gigaseg/engine/segment.hpp"

#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gigaseg {

struct BatchOptions {
  // Images segmented at once on the GPU, each on its own lane (CUDA stream). One lane where the
  // work stays on the host (host-only builds, a host backend requested) or when sequential.
  int lanes = 2;
  // Threads decoding images ahead; 0: min(8, max(2, hardware threads / 2)).
  int readers = 0;
  // Items whose outputs are written at once, each on its own thread; 0: as many as readers.
  int writers = 0;
  // Read, segment and write one item after another on the calling thread: no overlap at all
  // (the baseline the overlap is measured against).
  bool sequential = false;
  // The ranks sharing the batch (engine/process_group.hpp), each calling run_batch with the same
  // items; null: this process alone. The items are handed out as the ranks ask for them (a rank
  // that finishes one takes the next not yet taken; each rank asks for its readers' worth ahead),
  // each to one rank, whose io.read, io.write and io.done see it.
  ProcessGroup const* group = nullptr;
};

// One item's outcome, reported when its outputs are written or it failed.
struct BatchItem {
  std::size_t index = 0;
  std::exception_ptr error;              // null when the item succeeded
  char const* failed_in = "";            // where it failed: "read", "segment" or "write"
  index_t components = 0;                // 0 when it failed
  Backend backend = Backend::automatic;  // the backend that segmented it
  double seconds = 0;                    // waiting for its decoding, plus its segmentation (upload, pipeline, download)
};

struct BatchIO {
  // Decodes item i. Called on a reader thread (on the calling thread when sequential); what it
  // throws becomes item i's error.
  std::function<AnyHostImage(std::size_t i)> read;
  // Writes item i's outputs once its labels are complete; `input` is the decoded image. Called on
  // a writer thread (on the calling thread when sequential); what it throws becomes item i's error.
  std::function<void(std::size_t i, Segmentation const& result, AnyHostImage const& input)> write;
  // Called on the calling thread as each item finishes (in the order they finish); may be empty.
  std::function<void(BatchItem const& item)> done;
};

struct BatchReport {
  std::size_t items = 0, ok = 0, failed = 0;  // this rank's, on a group
  double seconds = 0;                         // wall time of the whole batch
  std::size_t lanes = 0, readers = 0, writers = 0;
  std::size_t staged_ahead = 0;  // uploads started while the previous image was segmented
  // Work summed over the items (on overlapping threads unless sequential): decoding, segmentation
  // (upload, pipeline, download) and writing.
  double decode_ms = 0, segment_ms = 0, write_ms = 0;
  std::map<std::string, double> stage_ms;       // the pipelines' own timings, summed
  std::map<std::string, std::size_t> backends;  // items segmented per backend ("cuda", "openmp", ...)
  double items_per_second() const { return items == 0 || seconds <= 0 ? 0.0 : double(items) / seconds; }
};

// Runs the pipeline over names.size() items: item i is read by io.read(i), segmented on the
// backend the context picks for its size, and written by io.write(i, ...); names[i] is the subject
// of its input errors (its file, say). Throws Error(usage) naming the BatchOptions field that is
// out of range (lanes 1..64, readers and writers 0..256); item errors never escape.
BatchReport run_batch(ExecutionContext const& context, PipelineParams const& params,
                      std::vector<std::string> const& names, BatchIO const& io, BatchOptions const& options = {});

}  // namespace gigaseg
