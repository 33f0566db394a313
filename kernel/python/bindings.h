// Declarations of the functions that add each part of the kernel to the
// tessera._tessera Python module; one concept per binding file.
#pragma once

#include <pybind11/pybind11.h>

namespace tessera::python {

void AddCoreTypesToPython(pybind11::module_& m);   // Array3, Quaternion, errors
void AddVariablesToPython(pybind11::module_& m);   // Variable<T>, registry, kernel variables
void AddParametersToPython(pybind11::module_& m);  // Parameters
void AddGeometriesToPython(pybind11::module_& m);  // geometry types
void AddModelToPython(pybind11::module_& m);       // Node, Properties, Element, ModelPart, Model
void AddRegistryToPython(pybind11::module_& m);    // Registry, Application
void AddIoToPython(pybind11::module_& m);          // ModelPartIO, output writers
void AddProcessesToPython(pybind11::module_& m);   // Process base class
void AddOutputToPython(pybind11::module_& m);      // VtkOutput, GidOutput, Hdf5Output
void AddUtilitiesToPython(pybind11::module_& m);   // FindSkinFaces
void AddCheckpointToPython(pybind11::module_& m);  // CheckpointWriter/Reader, SaveModelPart
void AddParallelToPython(pybind11::module_& m);    // Communicator, DistributeModelPart, InterfaceSum

}  // namespace tessera::python
