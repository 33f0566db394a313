// The ranks' measured speeds of the time balances ("balance": "time" of
// DistributedDem and of DistributedMoreauJean): each rank's work per
// compute second, gathered on every rank (so every rank bisects alike),
// damped over the checks, and the check of the ranks' seconds.
#pragma once

#include <algorithm>
#include <vector>

namespace tessera::dem {

// speed[r] (0: not measured yet; sized to the ranks where empty) updated
// from work[r] / seconds[r] where both are positive: half the old, half the
// new, so that one noisy interval moves a cut only half way and the cut
// settles instead of swinging; a rank's first measure as it is.
inline void UpdateRankSpeeds(const std::vector<double>& work, const std::vector<double>& seconds,
                             std::vector<double>& speed) {
  constexpr double kDamping = 0.5;
  if (speed.size() != work.size()) speed.assign(work.size(), 0.0);
  for (std::size_t r = 0; r < work.size(); ++r) {
    if (!(work[r] > 0.0) || !(seconds[r] > 0.0)) continue;  // nothing measured: the old speed
    const double measured = work[r] / seconds[r];
    speed[r] = speed[r] > 0.0 ? (1.0 - kDamping) * speed[r] + kDamping * measured : measured;
  }
}

// Whether the slowest rank's seconds exceed `threshold` times the mean.
inline bool SecondsImbalanced(const std::vector<double>& seconds, double threshold) {
  double total = 0.0;
  for (double t : seconds) total += t;
  const double most = seconds.empty() ? 0.0 : *std::max_element(seconds.begin(), seconds.end());
  return total > 0.0 && most > threshold * total / static_cast<double>(seconds.size());
}

// The speeds with a rank not measured yet at the mean of the measured ones;
// empty where none was measured.
inline std::vector<double> SpeedsWithUnmeasuredAtMean(std::vector<double> speed) {
  double sum = 0.0;
  int measured = 0;
  for (double v : speed)
    if (v > 0.0) sum += v, ++measured;
  if (measured == 0) return {};
  for (double& v : speed)
    if (!(v > 0.0)) v = sum / measured;
  return speed;
}

}  // namespace tessera::dem
