// ComputeStrainEnergy (see the header).
#include "utilities/strain_energy.h"

#include <exception>
#include <mutex>

#include "elements/strain_energy_provider.h"
#include "kernel/core/error.h"
#include "kernel/parallel/parallel_for.h"

namespace tessera::structural {

double ComputeStrainEnergy(ModelPart& model_part) {
  const auto elements = model_part.Elements();
  const ProcessInfo& info = model_part.GetProcessInfo();
  // An exception may not leave the OpenMP region: that of the first element
  // in order is kept (the same for any thread count) and rethrown afterwards.
  std::exception_ptr first;
  std::size_t first_index = elements.size();
  std::mutex mutex;
  const double energy = ParallelSum(elements.size(), [&](std::size_t k) -> double {
    try {
      Element& element = elements[k];
      auto* provider = dynamic_cast<StrainEnergyProvider*>(&element);
      if (!provider)
        TESSERA_ERROR("ComputeStrainEnergy: ", element.Info(), " of model part '",
                      model_part.FullName(),
                      "' stores no strain energy (only the structural solids, trusses and "
                      "membranes do)");
      return provider->CalculateStrainEnergy(info);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (k < first_index) {
        first = std::current_exception();
        first_index = k;
      }
      return 0.0;
    }
  });
  if (first) std::rethrow_exception(first);
  return energy;
}

}  // namespace tessera::structural
