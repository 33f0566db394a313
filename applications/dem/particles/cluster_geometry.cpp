// Reading Kratos .clu cluster files (see cluster_geometry.h).
#include "applications/dem/particles/cluster_geometry.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kernel/core/error.h"

namespace tessera::dem {
namespace {

// A line without its comment, carriage return and surrounding blanks.
std::string Clean(std::string line) {
  const std::size_t comment = line.find("//");
  if (comment != std::string::npos) line.erase(comment);
  const std::size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const std::size_t last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

struct Lines {
  std::string file;
  std::vector<std::string> text;  // cleaned
  std::size_t next = 0;           // index of the next line to read

  // The next non-empty line (its 1-based number in `number`); false at the end.
  bool Next(std::string& line, std::size_t& number) {
    while (next < text.size()) {
      number = ++next;
      line = text[number - 1];
      if (!line.empty()) return true;
    }
    return false;
  }
};

// Every whitespace-separated word of `line` as a finite number, or an error
// naming the file, the line and the word.
std::vector<double> Numbers(const Lines& lines, const std::string& line, std::size_t number,
                            const char* what) {
  std::vector<double> values;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(word.c_str(), &end);
    if (end != word.c_str() + word.size() || errno == ERANGE || !std::isfinite(value))
      TESSERA_ERROR(lines.file, ":", number, ": malformed number '", word, "' in ", what);
    values.push_back(value);
  }
  return values;
}

// The `count` numbers that follow a keyword line (on one line or several).
std::vector<double> NumbersAfter(Lines& lines, std::size_t keyword_line, const char* keyword,
                                 std::size_t count) {
  std::vector<double> values;
  std::string line;
  std::size_t number = keyword_line;
  while (values.size() < count) {
    if (!lines.Next(line, number))
      TESSERA_ERROR(lines.file, ":", keyword_line, ": '", keyword, "' must be followed by ", count,
                    count == 1 ? " number" : " numbers", "; the file ends after ", values.size());
    const std::vector<double> more = Numbers(lines, line, number, keyword);
    values.insert(values.end(), more.begin(), more.end());
    if (values.size() > count)
      TESSERA_ERROR(lines.file, ":", number, ": '", keyword, "' takes ", count,
                    count == 1 ? " number" : " numbers", ", got ", values.size());
  }
  return values;
}

bool IsKeyword(const std::string& line) {
  for (const char* keyword : {"Name", "Begin centers_and_radii", "Particle_center_and_diameter",
                              "Size", "Volume", "Inertia per unit mass"})
    if (line == keyword) return true;
  return false;
}

void CheckPositive(const Lines& lines, std::size_t number, const char* what, double value) {
  if (!(value > 0.0))
    TESSERA_ERROR(lines.file, ":", number, ": ", what, " must be > 0, got ", value);
}

}  // namespace

ClusterGeometry ReadClusterFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    TESSERA_ERROR("cluster file '", path,
                  "' (CLUSTER_FILE_NAME) cannot be opened: it must exist, relative to the case "
                  "folder (the working directory)");
  Lines lines;
  lines.file = path;
  for (std::string raw; std::getline(in, raw);) lines.text.push_back(Clean(raw));

  ClusterGeometry g;
  g.file = path;
  std::size_t size_line = 0, volume_line = 0, inertia_line = 0, spheres_line = 0;
  std::string line;
  std::size_t number = 0;
  while (lines.Next(line, number)) {
    if (line == "Name") {
      std::size_t name_line = number;
      if (!lines.Next(line, name_line))
        TESSERA_ERROR(path, ":", number, ": 'Name' must be followed by the cluster's name");
      g.name = line;
    } else if (line == "Begin centers_and_radii") {
      if (spheres_line != 0)
        TESSERA_ERROR(path, ":", number,
                      ": a second 'Begin centers_and_radii' block (the first at "
                      "line ",
                      spheres_line, ")");
      spheres_line = number;
      bool closed = false;
      while (lines.Next(line, number)) {
        if (line == "End centers_and_radii") {
          closed = true;
          break;
        }
        if (IsKeyword(line))
          TESSERA_ERROR(path, ":", spheres_line,
                        ": 'Begin centers_and_radii' has no 'End centers_and_radii' (found '", line,
                        "' at line ", number, ")");
        const std::vector<double> v = Numbers(lines, line, number, "centers_and_radii");
        if (v.size() != 4)
          TESSERA_ERROR(path, ":", number,
                        ": a centers_and_radii line needs 4 numbers (x y z "
                        "radius), got ",
                        v.size());
        CheckPositive(lines, number, "a sphere radius", v[3]);
        g.centres.push_back({v[0], v[1], v[2]});
        g.radii.push_back(v[3]);
      }
      if (!closed)
        TESSERA_ERROR(path, ":", spheres_line,
                      ": 'Begin centers_and_radii' has no 'End "
                      "centers_and_radii'");
      if (g.radii.empty())
        TESSERA_ERROR(path, ":", spheres_line, ": the centers_and_radii block lists no sphere");
    } else if (line == "Particle_center_and_diameter") {
      const std::vector<double> v = NumbersAfter(lines, number, "Particle_center_and_diameter", 4);
      g.has_enclosing_sphere = true;
      g.enclosing_centre = {v[0], v[1], v[2]};
      g.enclosing_diameter = v[3];
    } else if (line == "Size") {
      size_line = number;
      g.size = NumbersAfter(lines, number, "Size", 1)[0];
      CheckPositive(lines, size_line, "Size", g.size);
    } else if (line == "Volume") {
      volume_line = number;
      g.volume = NumbersAfter(lines, number, "Volume", 1)[0];
      CheckPositive(lines, volume_line, "Volume", g.volume);
    } else if (line == "Inertia per unit mass") {
      inertia_line = number;
      const std::vector<double> v = NumbersAfter(lines, number, "Inertia per unit mass", 3);
      for (int k = 0; k < 3; ++k) CheckPositive(lines, inertia_line, "Inertia per unit mass", v[k]);
      g.inertia_per_unit_mass = {v[0], v[1], v[2]};
    } else {
      TESSERA_ERROR(path, ":", number, ": unexpected '", line,
                    "'; expected Name, Begin centers_and_radii, Particle_center_and_diameter, "
                    "Size, Volume or Inertia per unit mass");
    }
  }
  auto require = [&](std::size_t found, const char* block) {
    if (found == 0)
      TESSERA_ERROR(path, ": no '", block,
                    "' block; a cluster file needs Begin centers_and_radii "
                    "... End centers_and_radii, Size, Volume and Inertia per unit mass");
  };
  require(spheres_line, "Begin centers_and_radii");
  require(size_line, "Size");
  require(volume_line, "Volume");
  require(inertia_line, "Inertia per unit mass");
  return g;
}

}  // namespace tessera::dem
