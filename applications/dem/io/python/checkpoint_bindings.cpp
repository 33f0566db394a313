// Python bindings of the DEM checkpoint (io/dem_checkpoint.h): module
// functions of tessera._dem that DEMSolver's SaveCheckpoint / LoadCheckpoint
// call with the kernel's tessera.CheckpointWriter / CheckpointReader.
#include <pybind11/pybind11.h>

#include "applications/dem/inlets/particle_inlet.h"
#include "applications/dem/io/dem_checkpoint.h"
#include "applications/dem/strategies/dem_strategy.h"
#include "kernel/io/checkpoint_file.h"

namespace py = pybind11;

namespace tessera::dem {

void BindCheckpoint(py::module_& m) {
  m.def("SaveStrategyCheckpoint", &SaveStrategyState, py::arg("strategy"), py::arg("writer"),
        py::arg("group"),
        "The strategy's state (rows, contact lists and histories, bonds, walls, clusters, "
        "search and energy counters) under `group`");
  m.def("PrepareSpheresForCheckpoint", &PrepareSpheresForCheckpoint, py::arg("strategy"),
        py::arg("inlets"), py::arg("reader"), py::arg("group"), py::arg("spheres_group"),
        "Before the model parts are loaded: the spheres' model part holds the saved spheres "
        "(those inlets created are made, those deleted since are deleted)");
  m.def("LoadStrategyCheckpoint", &LoadStrategyState, py::arg("strategy"), py::arg("reader"),
        py::arg("group"), "After the model parts are loaded: the strategy's saved state");
  m.def("SaveInletCheckpoint", &SaveInletState, py::arg("inlets"), py::arg("writer"),
        py::arg("group"), "The inlets' counters and random generators under `group`");
  m.def("LoadInletCheckpoint", &LoadInletState, py::arg("inlets"), py::arg("reader"),
        py::arg("group"));
}

}  // namespace tessera::dem
