// gigaseg kmeans IN OUT --k K [--iters N] [--seed S] [--space rgb|lab|gray] [--attempts A]: an 8-bit map of
// cluster indices ordered by ascending centre luminance; the centres are printed.
#include "apps/gigaseg/backend_dispatch.hpp"
#include "gigaseg/algorithms/kmeans.hpp"

#include <cstdio>
#include <iostream>

namespace gigaseg::cli {

Command make_kmeans_command(CLI::App& parent) {
  struct Arguments {
    std::string input, output, space = "rgb";
    int k = 0, iterations = 10, attempts = 1;
    double tolerance = 0.0;
    std::uint64_t seed = 0;
  };
  auto arguments = std::make_shared<Arguments>();
  Command command;
  command.name = "kmeans";
  command.app = parent.add_subcommand("kmeans", "colour clustering into K classes (deterministic for a seed)");
  command.app->add_option("IN", arguments->input, "input image (RGB or 8-bit gray)")->required();
  command.app->add_option("OUT", arguments->output, "output map of cluster indices")->required();
  command.app->add_option("--k", arguments->k, "number of clusters (1..64)")
      ->required()
      ->check(in_range(1, max_clusters));
  command.app->add_option("--iters", arguments->iterations, "at most this many update steps")->check(positive_number());
  command.app->add_option("--tolerance", arguments->tolerance, "stop when no centre moves more than this");
  command.app->add_option("--seed", arguments->seed, "seed of the k-means++ initialisation")->check(unsigned_64());
  command.app->add_option("--attempts", arguments->attempts, "whole runs from different seeds; the least inertia wins")
      ->check(positive_number());
  command.app->add_option("--space", arguments->space, "rgb|lab|gray")->check(CLI::IsMember({"rgb", "lab", "gray"}));
  command.run = [arguments](Session& session) {
    format_for_extension(arguments->output);
    AnyHostImage image;
    {
      StageTimer timer(session, "read");
      image = read_input(session, arguments->input);
    }
    HostImage<Rgb8> const rgb = rgb8_of(image, arguments->input, "kmeans");
    KMeansParams params;
    params.k = arguments->k;
    params.iterations = arguments->iterations;
    params.tolerance = arguments->tolerance;
    params.seed = arguments->seed;
    params.attempts = arguments->attempts;
    params.space = arguments->space == "lab"    ? FeatureSpace::lab
                   : arguments->space == "gray" ? FeatureSpace::gray
                                                : FeatureSpace::rgb;
    KMeansResult result;
    HostImage<std::uint8_t> labels;
    {
      StageTimer timer(session, "compute");
      on_backend(session, rgb.pixel_count(), OpFamily::pipeline, [&](auto const& space) {
        using Memory = typename std::decay_t<decltype(space)>::memory_space;
        auto in = upload(space, rgb);
        ImageView<std::uint8_t, Memory> out("gigaseg::cli::clusters", rgb.width(), rgb.height());
        result = kmeans(space, ImageView<Rgb8 const, Memory>(in), out, params);
        labels = download(space, out);
      });
    }
    {
      StageTimer timer(session, "write");
      write_image(arguments->output, labels);
    }
    auto& r = session.report;
    r["command"] = "kmeans";
    r["width"] = rgb.width();
    r["height"] = rgb.height();
    r["k"] = params.k;
    r["space"] = arguments->space;
    r["iterations"] = result.iterations;
    r["attempts"] = params.attempts;
    r["attempt"] = result.attempt;
    r["inertia"] = result.inertia;
    r["centres"] = nlohmann::json::array();
    for (auto const& c : result.centres)
      r["centres"].push_back(result.channels == 1 ? nlohmann::json::array({c[0]})
                                                  : nlohmann::json::array({c[0], c[1], c[2]}));
    if (session.options.json || session.options.quiet) return;
    for (std::size_t i = 0; i < result.centres.size(); ++i) {
      auto const& c = result.centres[i];
      if (result.channels == 1)
        std::printf("%zu: %.3f\n", i, c[0]);
      else
        std::printf("%zu: %.3f %.3f %.3f\n", i, c[0], c[1], c[2]);
    }
  };
  return command;
}

}  // namespace gigaseg::cli
