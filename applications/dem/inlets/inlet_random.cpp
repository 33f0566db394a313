// The radius distributions of the particle inlets (see inlet_random.h).
#include "applications/dem/inlets/inlet_random.h"

#include <algorithm>

#include "kernel/core/error.h"

namespace tessera::dem {

void RadiusDistribution::Prepare(const std::string& where) {
  cumulative.clear();
  if (kind == Kind::kNormal || kind == Kind::kLognormal) return;
  const char* names = kind == Kind::kDiscrete ? "possible_values / relative_frequencies"
                                              : "pdf_breakpoints / pdf_values";
  const std::size_t minimum_size = kind == Kind::kDiscrete ? 1 : 2;
  if (values.size() != weights.size() || values.size() < minimum_size)
    TESSERA_ERROR(where, ": ", names, " must be lists of the same length (at least ", minimum_size,
                  "), got ", values.size(), " and ", weights.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!(values[k] > 0.0) || !std::isfinite(values[k]))
      TESSERA_ERROR(where, ": radius ", values[k], " (entry ", k, ") must be > 0");
    if (!(weights[k] >= 0.0) || !std::isfinite(weights[k]))
      TESSERA_ERROR(where, ": weight ", weights[k], " (entry ", k, ") must be >= 0");
    if (k > 0 && !(values[k] > values[k - 1]))
      TESSERA_ERROR(where, ": the radii must increase (entry ", k, ": ", values[k], " after ",
                    values[k - 1], ")");
  }
  double total = 0.0;
  if (kind == Kind::kDiscrete) {
    for (double w : weights) cumulative.push_back(total += w);
  } else {
    for (std::size_t k = 0; k + 1 < values.size(); ++k)
      cumulative.push_back(total +=
                           0.5 * (weights[k] + weights[k + 1]) * (values[k + 1] - values[k]));
  }
  if (!(total > 0.0)) TESSERA_ERROR(where, ": the weights of ", names, " sum to zero");
  for (double& c : cumulative) c /= total;
  cumulative.back() = 1.0;
}

double RadiusDistribution::Sample(InletRandom& random) const {
  switch (kind) {
    case Kind::kNormal:
    case Kind::kLognormal: {
      if (deviation == 0.0) return mean;
      // Parameters of log r for the lognormal law (the radius has mean and deviation as given).
      const double s2 = std::log1p((deviation / mean) * (deviation / mean));
      const double mu = std::log(mean) - 0.5 * s2;
      for (;;) {
        const double z = random.StandardNormal();
        const double r =
            kind == Kind::kNormal ? mean + deviation * z : std::exp(mu + std::sqrt(s2) * z);
        if (r >= minimum && r <= maximum) return r;
      }
    }
    case Kind::kDiscrete: {
      const double u = random.Uniform();
      const auto k = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
      return values[static_cast<std::size_t>(k)];
    }
    case Kind::kPiecewiseLinear: {
      const double u = random.Uniform();
      const auto k = static_cast<std::size_t>(
          std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
      // Inside interval k: solve F(t) = v for the linear density h0 + a t on [0, w]
      // (F = h0 t + a t²/2), in the form that stays exact when a = 0.
      const double h0 = weights[k], h1 = weights[k + 1], w = values[k + 1] - values[k];
      const double area = 0.5 * (h0 + h1) * w;
      const double before = k == 0 ? 0.0 : cumulative[k - 1];
      const double v = (u - before) / (cumulative[k] - before) * area;
      const double a = (h1 - h0) / w;
      const double t = 2.0 * v / (h0 + std::sqrt(std::max(0.0, h0 * h0 + 2.0 * a * v)));
      return values[k] + std::min(t, w);
    }
  }
  return mean;
}

double RadiusDistribution::Mean() const {
  switch (kind) {
    case Kind::kNormal:
    case Kind::kLognormal:
      return mean;
    case Kind::kDiscrete: {
      double sum = 0.0, total = 0.0;
      for (std::size_t k = 0; k < values.size(); ++k) {
        sum += weights[k] * values[k];
        total += weights[k];
      }
      return sum / total;
    }
    case Kind::kPiecewiseLinear: {
      // ∫ x f dx over a trapezoid: w (h0 (2 x0 + x1) + h1 (x0 + 2 x1)) / 6.
      double sum = 0.0, total = 0.0;
      for (std::size_t k = 0; k + 1 < values.size(); ++k) {
        const double x0 = values[k], x1 = values[k + 1], w = x1 - x0;
        sum += w * (weights[k] * (2.0 * x0 + x1) + weights[k + 1] * (x0 + 2.0 * x1)) / 6.0;
        total += 0.5 * (weights[k] + weights[k + 1]) * w;
      }
      return sum / total;
    }
  }
  return mean;
}

double RadiusDistribution::Largest() const {
  if (kind == Kind::kNormal || kind == Kind::kLognormal) return deviation == 0.0 ? mean : maximum;
  return values.back();
}

double RadiusDistribution::Smallest() const {
  if (kind == Kind::kNormal || kind == Kind::kLognormal) return deviation == 0.0 ? mean : minimum;
  if (kind == Kind::kPiecewiseLinear) return values.front();
  for (std::size_t k = 0; k < values.size(); ++k)
    if (weights[k] > 0.0) return values[k];
  return values.front();
}

}  // namespace tessera::dem
