#pragma once
// Runs a command's work on the backend the session's context chooses for the image
// (gigaseg::on_backend) and records that backend in the report; the transfers (upload, download,
// gray8_on, rgb8_of) come from the library's engine/on_backend.hpp.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/core/touched_image.hpp"
#include "gigaseg/engine/on_backend.hpp"

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace gigaseg::cli {

// `family` picks the small-image threshold that applies (core/context.hpp).
template <class F>
void on_backend(Session& session, index_t pixels, OpFamily family, F&& f) {
  session.report["backend"] = to_string(session.context.resolve(pixels, family));
  gigaseg::on_backend(session.context, pixels, family, std::forward<F>(f));
}

Path parse_path(std::string const& text);

// The size of `input` from its header where it is a file whose header reads; 0 x 0 otherwise (a
// pipe, which can be read only once, or a file the read will then report on).
ImageShape shape_if_known(std::string const& input);

// Whether `bytes` of output may be allocated and touched before the input that states its size is
// read: at most half the memory available now (a corrupt header can claim any size; the read then
// fails, and the touching stops).
bool may_touch_ahead(double bytes);

// An in-memory command's output, of its input's size (`shape`, from its header; 0 x 0 where it is
// not known): where the command will run on the host, it is allocated before the input is read and
// its pages are touched while the input decodes (core/touched_image.hpp), so the computation does
// not take the kernel's first-touch faults.
template <class T>
class OutputAhead {
 public:
  OutputAhead(Session const& session, ImageShape const& shape, OpFamily family, std::string label)
      : label_(std::move(label)) {
    if (shape.width > 0 && session.context.resolve(shape.width * shape.height, family) != Backend::cuda &&
        may_touch_ahead(double(shape.width) * double(shape.height) * double(sizeof(T)))) {
      try {
        ahead_.emplace(label_, shape.width, shape.height);
      } catch (Error const&) {  // out of memory: the read runs first, and reports a bad input as such
      }
    }
  }
  // A width x height output in `Memory`: the image allocated ahead where it is that, else a new one.
  template <class Memory>
  ImageView<T, Memory> take(index_t width, index_t height) {
    if constexpr (std::is_same<Memory, Kokkos::HostSpace>::value) {
      if (ahead_) {
        HostImage<T> image = ahead_->take();
        if (image.width() == width && image.height() == height) return image;
      }
    }
    return ImageView<T, Memory>(label_, width, height);
  }

 private:
  std::string label_;
  std::optional<TouchedImage<T>> ahead_;
};

}  // namespace gigaseg::cli
