// Random numbers of the particle inlets: a seeded, portable generator and the
// radius distributions Kratos' inlets offer.
//
// Every draw is a function of the seed and of the draws before it only: the
// generator is SplitMix64 (a fixed integer recurrence, the same on every
// platform and standard library), uniforms take its top 53 bits, normals come
// from the polar Box–Muller method written here. No std:: distribution is used,
// because their algorithms are left to the library. Inlets draw serially, so
// results do not depend on the number of threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::dem {

class InletRandom {
 public:
  explicit InletRandom(std::uint64_t seed = 0) : state_(seed) {}

  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in {0, ..., n - 1} (n > 0; the bias of the modulo is below 2^-40 for n < 2^24).
  std::uint64_t Below(std::uint64_t n) { return Next() % n; }
  // Standard normal (polar Box–Muller; the second value of each pair is discarded
  // so that a draw never depends on whether the previous one kept a spare).
  double StandardNormal() {
    double u, v, s;
    do {
      u = 2.0 * Uniform() - 1.0;
      v = 2.0 * Uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    return u * std::sqrt(-2.0 * std::log(s) / s);
  }

  // The generator's whole state (a checkpoint saves and restores it).
  std::uint64_t State() const { return state_; }
  void SetState(std::uint64_t state) { state_ = state; }

 private:
  std::uint64_t state_;
};

// Seeds of independent streams from one seed (a SplitMix64 step of seed ^ salt).
inline std::uint64_t DeriveSeed(std::uint64_t seed, std::uint64_t salt) {
  InletRandom mix(seed ^ (salt * 0xD1B54A32D192ED03ull));
  return mix.Next();
}

// The radius distribution of one inlet (PROBABILITY_DISTRIBUTION):
//   normal     mean RADIUS, standard deviation STANDARD_DEVIATION;
//   lognormal  the radius (not its log) has mean RADIUS and standard deviation
//              STANDARD_DEVIATION: log r ~ N(mu, s) with s² = ln(1 + σ²/R²),
//              mu = ln R - s²/2;
//   both truncated to [minimum, maximum] (redrawn until inside: Kratos' default
//   bounds 0.5 R and 1.5 R);
//   discrete          values[k] with probability weights[k] / Σ weights;
//   piecewise_linear  density linear between breakpoints values[k] with heights weights[k].
struct RadiusDistribution {
  enum class Kind { kNormal, kLognormal, kDiscrete, kPiecewiseLinear };
  Kind kind = Kind::kNormal;
  double mean = 0.0, deviation = 0.0, minimum = 0.0, maximum = 0.0;
  std::vector<double> values, weights;
  // Cumulative probabilities of the values (discrete) or of the intervals (piecewise linear).
  std::vector<double> cumulative;

  // Fills `cumulative`; throws (naming `where`) on an empty or inconsistent table.
  void Prepare(const std::string& where);
  double Sample(InletRandom& random) const;
  double Mean() const;  // of the untruncated law (normal, lognormal) or of the table
  double Largest() const;
  double Smallest() const;
};

}  // namespace tessera::dem
