// Bindings of the distributed-run layer (kernel/parallel): the run's
// Communicator (tessera.DefaultCommunicator()), DistributeModelPart (partition
// with METIS and keep this rank's piece), InterfaceSum (the halo exchange
// an explicit strategy is given) and BackgroundWorker (a thread that runs
// one solver's half of a step while another's runs). Python uses these, not mpi4py: the kernel
// and the scripts then share one MPI initialisation and one library.
#include <pybind11/stl.h>

#include "kernel/io/model_part_io.h"
#include "kernel/linear_solvers/petsc_linear_solver.h"
#include "kernel/model/model_part.h"
#include "kernel/parallel/background_worker.h"
#include "kernel/parallel/communicator.h"
#include "kernel/parallel/distribute_model_part.h"
#include "kernel/parallel/interface_sum.h"
#include "kernel/python/bindings.h"

namespace py = pybind11;

namespace tessera::python {

void AddParallelToPython(py::module_& m) {
  // Tasks are C++ callables that applications bind (e.g. the explicit
  // strategy's BeginKickOn); Python only waits.
  py::class_<BackgroundWorker, std::shared_ptr<BackgroundWorker>>(
      m, "BackgroundWorker",
      "A persistent thread that runs one task at a time with its own OpenMP thread count")
      .def(py::init<>())
      .def("Wait", &BackgroundWorker::Wait, py::call_guard<py::gil_scoped_release>(),
           "Blocks until the task started last has ended; raises what it raised")
      .def("Busy", &BackgroundWorker::Busy)
      .def("LastTaskSeconds", &BackgroundWorker::LastTaskSeconds,
           "Wall-clock seconds the task started last took");

  using Comm = Communicator;
  py::class_<Comm, std::shared_ptr<Comm>>(m, "Communicator",
                                          "The ranks of a run (serial: one rank; MPI: mpirun's)")
      .def("Rank", &Comm::Rank)
      .def("Size", &Comm::Size)
      .def("IsDistributed", &Comm::IsDistributed,
           "True for the MPI communicator of a run started by mpirun")
      .def("Barrier", &Comm::Barrier, py::call_guard<py::gil_scoped_release>())
      .def(
          "SumAll", [](const Comm& c, double v) { return c.SumAll(v); }, py::arg("value"),
          "The sum over the ranks, in ascending rank order (the same bits on every rank)")
      .def(
          "SumAllInt", [](const Comm& c, std::int64_t v) { return c.SumAll(v); }, py::arg("value"))
      .def(
          "MinAll", [](const Comm& c, double v) { return c.MinAll(v); }, py::arg("value"))
      .def(
          "MaxAll", [](const Comm& c, double v) { return c.MaxAll(v); }, py::arg("value"))
      .def(
          "MinAllInt", [](const Comm& c, std::int64_t v) { return c.MinAll(v); }, py::arg("value"))
      .def(
          "MaxAllInt", [](const Comm& c, std::int64_t v) { return c.MaxAll(v); }, py::arg("value"))
      .def(
          "SumAllInts",
          [](const Comm& c, std::vector<std::int64_t> values) {
            c.SumAll(values);
            return values;
          },
          py::arg("values"), "Element-wise sums over the ranks (one collective)")
      .def(
          "MinAllDoubles",
          [](const Comm& c, std::vector<double> values) {
            c.MinAll(values);
            return values;
          },
          py::arg("values"), "Element-wise minima over the ranks (one collective; exact)")
      .def(
          "MaxAllDoubles",
          [](const Comm& c, std::vector<double> values) {
            c.MaxAll(values);
            return values;
          },
          py::arg("values"), "Element-wise maxima over the ranks (one collective; exact)")
      .def(
          "BroadcastString",
          [](const Comm& c, std::string text, int root) {
            c.Broadcast(text, root);
            return text;
          },
          py::arg("text"), py::arg("root") = 0)
      .def(
          "BroadcastDoubles",
          [](const Comm& c, std::vector<double> values, int root) {
            c.Broadcast(values, root);
            return values;
          },
          py::arg("values"), py::arg("root") = 0)
      .def(
          "GatherDoubles",
          [](const Comm& c, const std::vector<double>& local, int root) {
            return c.Gather(local, root);
          },
          py::arg("local"), py::arg("root") = 0,
          "Each rank's list, in rank order, on the root; [] elsewhere")
      .def(
          "GatherInts",
          [](const Comm& c, const std::vector<std::int64_t>& local, int root) {
            return c.Gather(local, root);
          },
          py::arg("local"), py::arg("root") = 0)
      .def(
          "Exchange",
          [](const Comm& c, const std::vector<int>& neighbours,
             const std::vector<std::vector<double>>& send) { return c.Exchange(neighbours, send); },
          py::arg("neighbours"), py::arg("send"),
          "Sends send[k] to neighbours[k]; returns what each neighbour sent here")
      .def("Abort", &Comm::Abort, py::arg("code") = 1, "Ends every rank of the run (MPI_Abort)");

  py::class_<SerialCommunicator, Comm, std::shared_ptr<SerialCommunicator>>(
      m, "SerialCommunicator", "One rank: the communicator of serial runs")
      .def(py::init<>());

  m.def(
      "DefaultCommunicator", []() { return std::const_pointer_cast<Comm>(DefaultCommunicator()); },
      "The run's communicator: MPI's under mpirun in a build with MPI, else the serial one");
  m.def("MPIBuilt", &MPIBuilt, "Whether this build of Tessera has MPI (TESSERA_WITH_MPI)");
  m.def("PetscBuilt", &PetscBuilt,
        "Whether this build of Tessera has PETSc (TESSERA_WITH_PETSC): the \"petsc\" linear "
        "solver and the distributed implicit solvers");
  m.def("LaunchedByMPI", &LaunchedByMPI,
        "Whether this process was started by mpirun/mpiexec (its environment names a rank)");

  py::class_<LocalMesh>(m, "LocalMesh", "What DistributeModelPart left to this rank")
      .def_readonly("rank", &LocalMesh::rank)
      .def_readonly("neighbours", &LocalMesh::neighbours)
      .def_readonly("shared_nodes", &LocalMesh::shared_nodes)
      .def_readonly("owned_nodes", &LocalMesh::owned_nodes)
      .def_readonly("element_positions", &LocalMesh::element_positions,
                    "The kept elements' positions in the whole mesh's element list (the "
                    "file's order), in the model part's order")
      .def_readonly("condition_positions", &LocalMesh::condition_positions,
                    "The same for the kept conditions");
  m.def(
      "DistributeModelPart",
      [](ModelPart& model_part, const std::shared_ptr<Comm>& communicator) {
        const MeshPartition partition = PartitionMesh(model_part, communicator->Size());
        return DistributeModelPart(model_part, partition, communicator->Rank());
      },
      py::arg("model_part"), py::arg("communicator"),
      "Partitions the root model part's elements with METIS into communicator.Size() parts "
      "(the same on every rank) and removes what this rank does not keep: other parts' "
      "elements, the conditions given to another part, the nodes of neither");

  m.def(
      "DistributeModelPart",
      [](ModelPart& model_part, int parts, int rank) {
        const MeshPartition partition = PartitionMesh(model_part, parts);
        return DistributeModelPart(model_part, partition, rank);
      },
      py::arg("model_part"), py::arg("parts"), py::arg("rank"),
      "The same for the piece `rank` of a partition into `parts` (any process: a serial "
      "script can look at what each rank of a run would keep)");

  m.def(
      "ReadModelPartPiece",
      [](const ModelPartIO& io, ModelPart& model_part, const std::shared_ptr<Comm>& communicator) {
        return ReadModelPartPiece(io.CheckedReadPath(), model_part, io.Options(),
                                  communicator->Size(), communicator->Rank());
      },
      py::arg("io"), py::arg("model_part"), py::arg("communicator"),
      "Reads into the empty root model_part only this rank's piece of io's .mdpa file: the "
      "file's connectivity first (every rank), the METIS partition of DistributeModelPart, "
      "then the nodes, elements, conditions and data this rank keeps. The same model part as "
      "reading the whole file and DistributeModelPart, without the whole mesh in any rank");
  m.def(
      "ReadModelPartPiece",
      [](const ModelPartIO& io, ModelPart& model_part, int parts, int rank) {
        return ReadModelPartPiece(io.CheckedReadPath(), model_part, io.Options(), parts, rank);
      },
      py::arg("io"), py::arg("model_part"), py::arg("parts"), py::arg("rank"),
      "The same for the piece `rank` of a partition into `parts` (any process)");

  py::class_<InterfaceSum, std::shared_ptr<InterfaceSum>>(
      m, "InterfaceSum", "Sums shared nodes' values over the ranks, in ascending rank order")
      .def(py::init([](const std::shared_ptr<Comm>& communicator, std::vector<int> neighbours,
                       std::vector<std::vector<IdType>> shared_nodes) {
             return std::make_shared<InterfaceSum>(communicator, std::move(neighbours),
                                                   std::move(shared_nodes));
           }),
           py::arg("communicator"), py::arg("neighbours"), py::arg("shared_nodes"))
      .def("Neighbours", &InterfaceSum::Neighbours)
      .def("SharedNodes", &InterfaceSum::SharedNodes);
}

}  // namespace tessera::python
