#pragma once
// ReadAhead: an image file read whole on a thread of its own, into memory that Kokkos does not
// allocate, so that the read can run before and while Kokkos starts.
//
// A program that segments one image per process pays for Kokkos's start before its first read:
// in a CUDA build, the driver's and the context's start take 0.2-0.4 s on the GPU machines of
// docs/performance.md (with any backend, since Kokkos starts CUDA), as long as decoding a
// 20000 x 20000 tiled TIFF on 16 threads. Started before Kokkos::initialize, the read overlaps it:
//
//   ReadAhead ahead(path);                  // reading starts
//   Runtime runtime(options);               // Kokkos starts meanwhile
//   AnyHostImage image = ahead.take();      // read_image(path)'s image, once the read is done
//
// The image is read_image(path)'s, decoded the same way (and on io_threads(): set it first), and
// a failure is read_image's error, thrown by take(). Its pixels belong to the ReadAhead: they stay
// valid, and are freed, with it, so it must outlive every view of the image (copies and rois
// included; they are unmanaged Kokkos views). Reading ahead needs no Kokkos; using the image
// needs Kokkos initialised, as for any image. A program that changes its environment (setenv) must
// do so before: the readers' libraries read it on the read's thread.
#include "gigaseg/core/io/image_file.hpp"

#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <thread>

namespace gigaseg {

class ReadAhead {
 public:
  // Starts reading `path`. Where no thread can be started, take() reads it instead, as read_image
  // does (through Kokkos, so then only once Kokkos is initialised).
  explicit ReadAhead(std::string path);
  // Waits for the read to end (there is no way to stop a decoder part way).
  ~ReadAhead();
  ReadAhead(ReadAhead const&) = delete;
  ReadAhead& operator=(ReadAhead const&) = delete;

  std::string const& path() const noexcept { return path_; }
  // True until take() or discard() has been called.
  bool pending() const noexcept { return !done_; }
  // Waits for the read and returns the image, or throws what read_image(path) would throw. Once:
  // a second call is an Error(internal).
  AnyHostImage take();
  // Waits for the read and frees its image (a program that decided not to read the file whole,
  // e.g. to read it by tiles instead). A read's error is dropped: no one asked for the image.
  void discard();
  // Milliseconds the read took on its own thread; 0 until take() or discard() has returned.
  double read_ms() const noexcept { return read_ms_; }

  struct Memory;  // the read's allocations (defined in read_ahead.cpp)

 private:
  void join();

  std::string path_;
  std::unique_ptr<Memory> memory_;
  AnyHostImage image_;
  std::exception_ptr failure_;
  double read_ms_ = 0;
  bool done_ = false;
  bool started_ = false;
  std::thread thread_;
};

namespace detail {
// For the readers: true on a thread that reads ahead (ReadAhead).
bool reading_ahead() noexcept;
// Memory for `bytes` of a new image in the read ahead of this thread (null for none); it lives as
// long as the ReadAhead. Throws OutOfMemory naming `label` when it runs out.
void* read_ahead_memory(std::string const& label, std::size_t bytes);

// A new host image of the readers (uninitialised pixels, rows aligned as ImageView aligns them):
// in the read's own memory on a thread that reads ahead, else allocated by Kokkos.
template <class T>
HostImage<T> new_host_image(std::string const& label, index_t width, index_t height) {
  if (!reading_ahead()) return HostImage<T>(label, width, height);
  GIGASEG_REQUIRE(width >= 0 && height >= 0, ErrorKind::usage, label,
                  "negative image size " + std::to_string(width) + "x" + std::to_string(height));
  index_t const pitch = aligned_pitch(width, index_t(sizeof(T)));
  GIGASEG_REQUIRE(height == 0 || pitch <= std::numeric_limits<index_t>::max() / height, ErrorKind::resource, label,
                  "image of " + std::to_string(width) + "x" + std::to_string(height) +
                      " pixels does not fit in a 64-bit address space");
  void* const memory = read_ahead_memory(label, std::size_t(pitch) * std::size_t(height));
  return HostImage<T>::wrap(static_cast<T*>(memory), width, height, pitch);
}
}  // namespace detail

}  // namespace gigaseg
