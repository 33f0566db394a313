// Reading speed of the .mdpa reader on a big structured mesh.
//
// Writes a block of n x n x n hexahedra (Element3D8N; default n = 100, i.e.
// 1,030,301 nodes and 1,000,000 elements) or of 6 n^3 tetrahedra
// (Element3D4N) with GiD-like formatting (fixed 10-decimal coordinates with a
// jitter, so that every digit is parsed), reads it back `repeats` times into a
// fresh model part, and prints the file size, the seconds of each read and the
// throughput. Then writes the last model part with MdpaWriter and reports that
// speed too.
//
//   mdpa_read_benchmark [n=100] [repeats=3] [hex|tet] [file=/tmp/tessera_mdpa_benchmark.mdpa]
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "kernel/io/mdpa_reader.h"
#include "kernel/io/mdpa_writer.h"
#include "kernel/model/model.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void AppendInt(std::string& out, long long v) {
  char buffer[24];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
}

void AppendFixed(std::string& out, double v) {
  char buffer[48];
  out.append(buffer,
             std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed, 10).ptr);
}

std::string MakeMesh(int n, bool tetrahedra) {
  std::string out;
  const long long nodes = static_cast<long long>(n + 1) * (n + 1) * (n + 1);
  out.reserve(static_cast<std::size_t>(nodes) * 48 + static_cast<std::size_t>(n) * n * n * 72);
  out += "Begin ModelPartData\nEnd ModelPartData\n\nBegin Properties 1\nEnd Properties\n\n";
  out += "Begin Nodes\n";
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  const double h = 1.0 / n;
  auto id = [n](int i, int j, int k) {
    return 1 + i + static_cast<long long>(n + 1) * (j + static_cast<long long>(n + 1) * k);
  };
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        out += "  ";
        AppendInt(out, id(i, j, k));
        for (int c : {i, j, k}) {
          out += ' ';
          AppendFixed(out, (c + jitter(rng)) * h);
        }
        out += '\n';
      }
  out += "End Nodes\n\n";
  out += tetrahedra ? "Begin Elements Element3D4N\n" : "Begin Elements Element3D8N\n";
  long long element = 0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const long long v[8] = {
            id(i, j, k),     id(i + 1, j, k),     id(i + 1, j + 1, k),     id(i, j + 1, k),
            id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
        // Kuhn's split of a cube into six tetrahedra along the 0-6 diagonal.
        static const int tets[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                                       {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};
        const int count = tetrahedra ? 6 : 1;
        for (int t = 0; t < count; ++t) {
          out += "  ";
          AppendInt(out, ++element);
          out += " 1";
          for (int a = 0; a < (tetrahedra ? 4 : 8); ++a) {
            out += ' ';
            AppendInt(out, v[tetrahedra ? tets[t][a] : a]);
          }
          out += '\n';
        }
      }
  out += "End Elements\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  const bool tetrahedra = argc > 3 && std::string(argv[3]) == "tet";
  const std::string path = argc > 4 ? argv[4] : "/tmp/tessera_mdpa_benchmark.mdpa";

  auto start = Clock::now();
  {
    const std::string text = MakeMesh(n, tetrahedra);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f)) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  const double megabytes = std::filesystem::file_size(path) / 1e6;
  std::printf("file %s: %.1f MB (%s block, n = %d), generated in %.2f s\n", path.c_str(), megabytes,
              tetrahedra ? "tetrahedra" : "hexahedra", n, Seconds(start));

  double best = 1e300, total = 0.0;
  std::size_t nodes = 0, elements = 0;
  tessera::Model model;
  for (int r = 0; r < repeats; ++r) {
    if (model.HasModelPart("Main")) model.DeleteModelPart("Main");
    tessera::ModelPart& mp = model.CreateModelPart("Main");
    start = Clock::now();
    tessera::MdpaReader().ReadFile(path, mp);
    const double seconds = Seconds(start);
    nodes = mp.NumberOfNodes();
    elements = mp.NumberOfElements();
    best = std::min(best, seconds);
    total += seconds;
    std::printf("read %d: %.3f s, %.1f MB/s (%zu nodes, %zu elements)\n", r + 1, seconds,
                megabytes / seconds, nodes, elements);
  }
  std::printf("best %.3f s = %.1f MB/s; mean %.3f s = %.1f MB/s; %.0f nodes+elements per second\n",
              best, megabytes / best, total / repeats, megabytes * repeats / total,
              (nodes + elements) / best);

  start = Clock::now();
  const std::string written = tessera::MdpaWriter().WriteToString(model.GetModelPart("Main"));
  const double write_seconds = Seconds(start);
  std::printf("write (MdpaWriter, to memory): %.1f MB in %.3f s = %.1f MB/s\n",
              written.size() / 1e6, write_seconds, written.size() / 1e6 / write_seconds);
  std::filesystem::remove(path);
  return 0;
}
