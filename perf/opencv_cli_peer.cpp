// The command line's peer: what a user would write with OpenCV instead of running gigaseg, one
// process per image, file to file (perf/cli_vs_opencv.py times both). Each operation reads the
// image with cv::imread, runs OpenCV's equivalent and writes the same kind of output with
// cv::imwrite (OpenCV's default encoder settings):
//   threshold IN OUT.png          Otsu, 0/255 mask                (gigaseg threshold --method otsu)
//   label     IN OUT.png          8-connected, 16-bit labels      (gigaseg label, N < 65536)
//   median    IN OUT.png          5 x 5 median                    (gigaseg median --size 5)
//   edt       IN OUT.tif          exact distance, float           (gigaseg edt)
//   nuclei    IN OUT.png CSV      Otsu (darker side), labels and their statistics
//                                                                 (gigaseg segment --pipeline nuclei --stats);
//                                 OUT.raw: the 32-bit labels as raw bytes, any count (OpenCV's
//                                 TIFF encoder cannot write 4 GiB of labels: no BigTIFF)
// Prints the stage times (read, compute, write) in milliseconds as one JSON line on stdout.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

int usage() {
  std::fprintf(stderr, "usage: opencv_cli_peer threshold|label|median|edt|nuclei IN OUT [CSV]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return usage();
  std::string const op = argv[1], in = argv[2], out = argv[3];
  auto start = Clock::now();
  cv::Mat const image = cv::imread(in, cv::IMREAD_GRAYSCALE);
  if (image.empty()) {
    std::fprintf(stderr, "opencv_cli_peer: cannot read %s\n", in.c_str());
    return 3;
  }
  double const read_ms = ms_since(start);
  start = Clock::now();
  cv::Mat result;
  std::string csv;
  if (op == "threshold") {
    cv::threshold(image, result, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
  } else if (op == "label") {
    cv::Mat labels;
    int const n = cv::connectedComponents(image, labels, 8, CV_32S);
    if (n > 65536) return 4;
    labels.convertTo(result, CV_16U);
  } else if (op == "median") {
    cv::medianBlur(image, result, 5);
  } else if (op == "edt") {
    cv::distanceTransform(image, result, cv::DIST_L2, cv::DIST_MASK_PRECISE, CV_32F);
  } else if (op == "nuclei") {
    if (argc < 5) return usage();
    cv::Mat mask, labels, stats, centroids;
    cv::threshold(image, mask, 0, 255, cv::THRESH_BINARY_INV | cv::THRESH_OTSU);
    int const n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    bool const raw = out.size() > 4 && out.compare(out.size() - 4, 4, ".raw") == 0;
    if (raw) {
      result = labels;  // 32-bit labels, written below as raw bytes
    } else {
      if (n > 65536) return 4;
      labels.convertTo(result, CV_16U);
    }
    csv = "label,area,x0,y0,x1,y1,cx,cy\n";
    char line[160];
    for (int i = 1; i < n; ++i) {
      int const* s = stats.ptr<int>(i);
      double const* c = centroids.ptr<double>(i);
      std::snprintf(line, sizeof line, "%d,%d,%d,%d,%d,%d,%.3f,%.3f\n", i, s[cv::CC_STAT_AREA], s[cv::CC_STAT_LEFT],
                    s[cv::CC_STAT_TOP], s[cv::CC_STAT_LEFT] + s[cv::CC_STAT_WIDTH] - 1,
                    s[cv::CC_STAT_TOP] + s[cv::CC_STAT_HEIGHT] - 1, c[0], c[1]);
      csv += line;
    }
  } else {
    return usage();
  }
  double const compute_ms = ms_since(start);
  start = Clock::now();
  if (out.size() > 4 && out.compare(out.size() - 4, 4, ".raw") == 0) {
    // OpenCV writes no 32-bit labels past 4 GiB (its TIFF encoder has no BigTIFF): the raw array.
    std::FILE* file = std::fopen(out.c_str(), "wb");
    std::size_t const bytes = result.total() * result.elemSize();
    if (file == nullptr || std::fwrite(result.data, 1, bytes, file) != bytes || std::fclose(file) != 0) return 4;
  } else if (!cv::imwrite(out, result)) {
    return 4;
  }
  if (!csv.empty()) {
    std::FILE* file = std::fopen(argv[4], "wb");
    if (file == nullptr || std::fwrite(csv.data(), 1, csv.size(), file) != csv.size() || std::fclose(file) != 0)
      return 4;
  }
  double const write_ms = ms_since(start);
  std::printf("{\"read\": %.3f, \"compute\": %.3f, \"write\": %.3f}\n", read_ms, compute_ms, write_ms);
  return 0;
}
