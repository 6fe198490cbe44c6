#pragma once
// Runs a command's work on the backend the session's context chooses for the image
// (gigaseg::on_backend) and records that backend in the report; the transfers (upload, download,
// gray8_on, rgb8_of) come from the library's engine/on_backend.hpp.
#include "apps/gigaseg/cli.hpp"
#include "gigaseg/algorithms/path.hpp"
#include "gigaseg/engine/on_backend.hpp"

#include <string>
#include <utility>

namespace gigaseg::cli {

// `family` picks the small-image threshold that applies (core/context.hpp).
template <class F>
void on_backend(Session& session, index_t pixels, OpFamily family, F&& f) {
  session.report["backend"] = to_string(session.context.resolve(pixels, family));
  gigaseg::on_backend(session.context, pixels, family, std::forward<F>(f));
}

Path parse_path(std::string const& text);

}  // namespace gigaseg::cli
