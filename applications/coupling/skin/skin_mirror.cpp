// SkinMirror: moving the skin's mirror nodes and taking their loads back.
#include "applications/coupling/skin/skin_mirror.h"

#include <string>

#include "applications/coupling/coupling_variables.h"
#include "applications/dem/dem_variables.h"
#include "kernel/core/error.h"
#include "kernel/core/kernel_variables.h"
#include "kernel/model/model_part.h"

namespace tessera::coupling {

using dem::CONTACT_FORCES;
using dem::DEM_NODAL_AREA;

namespace {

std::vector<IndexType> CheckedRows(const std::vector<std::int64_t>& rows, const ModelPart& part,
                                   const char* what) {
  std::vector<IndexType> checked(rows.size());
  const auto count = static_cast<std::int64_t>(part.Nodal().Size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k] < 0 || rows[k] >= count)
      TESSERA_ERROR("SkinMirror: ", what, " row ", rows[k], " (skin node ", k, ") is outside ",
                    part.FullName(), "'s ", count, " nodes");
    checked[k] = static_cast<IndexType>(rows[k]);
  }
  return checked;
}

void RequireHistorical(ModelPart& part, const VariableBase& variable) {
  if (!part.Nodal().HasHistoricalVariable(variable))
    TESSERA_ERROR("SkinMirror: ", part.FullName(), " has no historical ", variable.Name(),
                  " (the coupled stage adds it before reading the decks)");
}

}  // namespace

SkinMirror::SkinMirror(ModelPart& structure, ModelPart& walls,
                       const std::vector<std::int64_t>& fe_rows,
                       const std::vector<std::int64_t>& wall_rows)
    : structure_(structure), walls_(walls) {
  if (&structure.GetRootModelPart() != &structure || &walls.GetRootModelPart() != &walls)
    TESSERA_ERROR("SkinMirror: ", structure.FullName(), " and ", walls.FullName(),
                  " must be root model parts (their rows are the nodal columns')");
  if (fe_rows.size() != wall_rows.size())
    TESSERA_ERROR("SkinMirror: ", fe_rows.size(), " structure rows against ", wall_rows.size(),
                  " wall rows; one of each per skin node");
  fe_rows_ = CheckedRows(fe_rows, structure, "structure");
  wall_rows_ = CheckedRows(wall_rows, walls, "wall");
  for (const VariableBase* v : {static_cast<const VariableBase*>(&DISPLACEMENT),
                                static_cast<const VariableBase*>(&VELOCITY),
                                static_cast<const VariableBase*>(&DEM_NODAL_FORCE),
                                static_cast<const VariableBase*>(&DEM_SURFACE_LOAD)})
    RequireHistorical(structure, *v);
  for (const VariableBase* v : {static_cast<const VariableBase*>(&DISPLACEMENT),
                                static_cast<const VariableBase*>(&VELOCITY),
                                static_cast<const VariableBase*>(&CONTACT_FORCES),
                                static_cast<const VariableBase*>(&DEM_NODAL_AREA)})
    RequireHistorical(walls, *v);
}

void SkinMirror::MoveWalls() {
  NodalDatabase& fe = structure_.Nodal();
  NodalDatabase& wall = walls_.Nodal();
  const Array3* u = fe.HistoricalColumn(DISPLACEMENT).Data();
  const Array3* v = fe.HistoricalColumn(VELOCITY).Data();
  const Array3* initial = fe.AllInitialCoordinates().data();
  Array3* x = wall.AllCoordinates().data();
  Array3* wall_u = wall.HistoricalColumn(DISPLACEMENT).Data();
  Array3* wall_v = wall.HistoricalColumn(VELOCITY).Data();
  const auto n = static_cast<std::int64_t>(fe_rows_.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    const IndexType f = fe_rows_[k], w = wall_rows_[k];
    x[w] = initial[f] + u[f];
    wall_u[w] = u[f];
    wall_v[w] = v[f];
  }
}

void SkinMirror::TakeLoads() {
  NodalDatabase& fe = structure_.Nodal();
  NodalDatabase& wall = walls_.Nodal();
  const Array3* force = wall.HistoricalColumn(CONTACT_FORCES).Data();
  const double* area = wall.HistoricalColumn(DEM_NODAL_AREA).Data();
  Array3* nodal_force = fe.HistoricalColumn(DEM_NODAL_FORCE).Data();
  Array3* surface_load = fe.HistoricalColumn(DEM_SURFACE_LOAD).Data();
  const auto n = static_cast<std::int64_t>(fe_rows_.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    const IndexType f = fe_rows_[k], w = wall_rows_[k];
    nodal_force[f] = force[w];
    surface_load[f] = area[w] > 0.0 ? force[w] / area[w] : Array3{};
  }
}

}  // namespace tessera::coupling
