// ConstitutiveLaw: the material response at one integration point (Kratos'
// ConstitutiveLaw API). A law registered by name is a prototype; each
// integration point owns a Clone().
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernel/core/error.h"
#include "kernel/core/types.h"
#include "kernel/core/variable.h"
#include "kernel/model/process_info.h"
#include "kernel/model/properties.h"

namespace tessera {

class Geometry;

class ConstitutiveLaw {
 public:
  using Pointer = std::shared_ptr<ConstitutiveLaw>;

  enum class StressMeasure { PK1, PK2, Kirchhoff, Cauchy };

  // What the element hands in and gets back.
  struct Parameters {
    const Properties* properties = nullptr;
    const ProcessInfo* process_info = nullptr;
    const Geometry* geometry = nullptr;
    // N and dN/dX at the point, borrowed from the element for the call (as
    // Kratos hands pointers): no copy per Gauss point. dN/dX is column-major,
    // number_of_nodes x dimension. Null when the caller has none.
    const double* shape_functions = nullptr;
    const double* shape_functions_derivatives = nullptr;
    int number_of_nodes = 0;
    int dimension = 0;
    Matrix deformation_gradient;  // F
    double determinant_f = 1.0;
    Vector strain_vector;        // Voigt; input when use_element_provided_strain
    Vector stress_vector;        // Voigt output
    Matrix constitutive_matrix;  // Voigt output (tangent)
    bool compute_stress = true;
    bool compute_constitutive_tensor = true;
    bool use_element_provided_strain = true;
  };

  virtual ~ConstitutiveLaw() = default;
  virtual Pointer Clone() const = 0;

  virtual int WorkingSpaceDimension() const = 0;
  virtual int GetStrainSize() const = 0;

  virtual void InitializeMaterial(const Properties&, const Geometry&, const Vector& /*N*/) {}
  virtual void CalculateMaterialResponse(Parameters& values, StressMeasure measure) = 0;
  virtual void FinalizeMaterialResponse(Parameters&, StressMeasure) {}
  // Kratos' query: false for laws without internal variables, whose
  // FinalizeMaterialResponse does nothing, so elements may skip the pass.
  virtual bool RequiresFinalizeMaterialResponse() const { return true; }
  // True when the response depends on the inputs and the properties alone:
  // InitializeMaterial, FinalizeMaterialResponse and ResetMaterial do nothing
  // and CalculateMaterialResponse changes nothing in the law, so one instance
  // may serve every integration point on every thread (elements then share the
  // properties' prototype instead of holding a clone per point).
  virtual bool IsStateless() const { return false; }
  virtual void ResetMaterial(const Properties&, const Geometry&, const Vector& /*N*/) {}

  // Kratos' CalculateValue: a scalar of the state that `values` describes (the
  // same inputs as CalculateMaterialResponse: the element's strain, or F); the
  // law's internal variables do not change. The structural laws answer
  // STRAIN_ENERGY, the stored energy per unit reference volume. Unlike Kratos'
  // default, which leaves the value as it was, a law that does not provide the
  // variable throws naming itself and the variable: a missing energy is an
  // error, never a silent zero.
  virtual double& CalculateValue(Parameters& /*values*/, const Variable<double>& variable,
                                 double& /*value*/) {
    TESSERA_ERROR("constitutive law ", Info(), " does not provide ", variable.Name(),
                  " (CalculateValue)");
  }

  // Verifies the properties hold what the law needs; throws naming what is missing.
  virtual int Check(const Properties&, const Geometry&, const ProcessInfo&) const { return 0; }
  virtual std::string Info() const = 0;

  // Checkpoint of the internal variables (committed state): SaveState appends
  // them, LoadState consumes the same count from the front of `state`. A law
  // whose state is its properties alone writes nothing.
  virtual void SaveState(std::vector<double>& /*out*/) const {}
  virtual void LoadState(std::span<const double>& /*state*/) {}
};

}  // namespace tessera
