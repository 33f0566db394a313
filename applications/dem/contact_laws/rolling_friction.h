// Rolling resistance of a contact (RollingFrictionOption), chosen per material
// pair by DEM_ROLLING_FRICTION_MODEL_NAME as Kratos names the models. Each
// model is one header in rolling/ (constant_torque.h says what a model
// provides) and one entry of the list RollingFrictionModels below: the name
// table, the scalar torque and the batch kernel's lanes loop over the list.
//
// R_r is the smaller radius of the two spheres and the sphere's radius against a
// wall (thesis §2.5.3-2.5.4); against walls mu_r is the material relation's
// ROLLING_FRICTION as well (Kratos), ROLLING_FRICTION_WITH_WALLS only in legacy
// decks without relations. w_rel = w_i - w_j (w_i against a wall); the
// torque acts on i, its opposite on j.
//
// Limit: within one step the torque alone must not reverse the relative
// rotation: |M_r| dt (1/I_i + 1/I_j) <= |w_rel|, i.e. at most the torque that
// brings w_rel to zero in this step. Without it a constant torque makes w_rel
// chatter around zero at rest (the instability Irazábal's variant addresses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "applications/dem/contact_laws/rolling/constant_torque.h"
#include "applications/dem/contact_laws/rolling/viscous_torque.h"
#include "kernel/core/array3.h"
#include "kernel/core/error.h"

namespace tessera::dem {

// A pair's rolling friction model: 0 for none, else 1 + its position in the
// list of models (RollingFrictionModels).
enum class RollingFrictionModel : std::uint8_t { kNone = 0 };

// The error of a model id outside a list of `models` models (a corrupt pair
// table): out of line and cold, as ThrowUnknownContactLaw.
[[noreturn, gnu::cold, gnu::noinline]] inline void ThrowUnknownRollingModel(
    RollingFrictionModel model, std::size_t models) {
  TESSERA_ERROR("rolling friction model id ", static_cast<int>(model), " is none of the ", models,
                " models of this build");
}

template <class... Models>
struct RollingModelList {
  static constexpr std::size_t size = sizeof...(Models);
  static_assert(size < 255, "RollingFrictionModel ids are one byte");

  // The id of model M (a compile error where M is not in the list).
  template <class M>
  static constexpr RollingFrictionModel Id() {
    constexpr bool found[] = {std::is_same_v<M, Models>...};
    std::size_t index = 0;
    while (index < size && !found[index]) ++index;
    if (index == size) throw "the model is not in the list";  // not a constant: compile error
    return static_cast<RollingFrictionModel>(index + 1);
  }
  // The id of the model named `name`; kNone where no model has that name.
  static constexpr RollingFrictionModel IdOfName(std::string_view name) {
    int id = 0, k = 1;
    ((id = id == 0 && name == Models::kName ? k : id, ++k), ...);
    return static_cast<RollingFrictionModel>(id);
  }
  static constexpr bool NamesAreUnique() {
    int k = 1;
    return ((static_cast<int>(IdOfName(Models::kName)) == k++) && ...);
  }
  // The models' names, ", "-separated, for error messages.
  static std::string Names() {
    std::string names;
    ((names += (names.empty() ? "" : ", "), names += Models::kName), ...);
    return names;
  }
  // f(std::type_identity<M>{}) for the model with id `model` (not kNone); an
  // id outside the list is an error naming it, never another model.
  template <class F>
  [[gnu::always_inline]] static decltype(auto) Visit(RollingFrictionModel model, F&& f) {
    return VisitFrom<1, Models...>(model, f);
  }

 private:
  template <std::size_t kId, class First, class... Rest, class F>
  [[gnu::always_inline]] static decltype(auto) VisitFrom(RollingFrictionModel model, F& f) {
    if constexpr (sizeof...(Rest) == 0) {
      if (static_cast<std::size_t>(model) != kId) ThrowUnknownRollingModel(model, size);
      return f(std::type_identity<First>{});
    } else {
      if (static_cast<std::size_t>(model) == kId) return f(std::type_identity<First>{});
      return VisitFrom<kId + 1, Rest...>(model, f);
    }
  }
};

// The rolling friction models of this build; a model is its header and one
// entry here.
using RollingFrictionModels = RollingModelList<ConstantTorqueRolling, ViscousTorqueRolling>;
static_assert(RollingFrictionModels::NamesAreUnique(), "two rolling friction models share a name");

template <class M>
inline constexpr RollingFrictionModel kRollingModelId = RollingFrictionModels::Id<M>();

// The model of a Kratos name; an unknown name is an error naming it, `where`
// (the file and key) and the known ones.
RollingFrictionModel RollingFrictionModelFromName(const std::string& name,
                                                  const std::string& where);
const char* RollingFrictionModelName(RollingFrictionModel model);

// Torque on body i (j gets the opposite). `inverse_inertia_sum` = 1/I_i + 1/I_j
// (1/I_i against a wall).
template <class Models = RollingFrictionModels>
inline Array3 RollingResistanceTorque(RollingFrictionModel model, double coefficient,
                                      double rolling_radius, double normal_force,
                                      const Array3& relative_angular_velocity,
                                      double inverse_inertia_sum, double dt) {
  if (model == RollingFrictionModel::kNone) return Array3{};
  const double spin = Norm(relative_angular_velocity);
  if (!(spin > 0.0) || !(normal_force > 0.0)) return Array3{};
  double magnitude = Models::Visit(model, [&]<class M>(std::type_identity<M>) {
    return M::Magnitude(coefficient, rolling_radius, normal_force, spin);
  });
  const double stopping = spin / (dt * inverse_inertia_sum);
  if (magnitude > stopping) magnitude = stopping;
  return (-magnitude / spin) * relative_angular_velocity;
}

}  // namespace tessera::dem
