"""IntegrationValuesExtrapolationToNodesProcess (Kratos'
integration_values_extrapolation_to_nodes_process): at the end of each step,
extrapolates integration point results (stresses, strains) to the nodes and
averages them there, weighted by element size, into the nodes' non-historical
values, which the GiD ("nodal_nonhistorical_results") and VTK
("nodal_data_value_variables") outputs then write. Implemented in C++
(kernel/processes/integration_values_extrapolation_to_nodes_process.h).

    "Parameters": {"model_part_name": "Structure",
                   "list_of_variables": ["CAUCHY_STRESS_VECTOR"],
                   "area_average": true, "average_variable": "NODAL_AREA",
                   "extrapolate_non_historical": true, "echo_level": 0}
"""
import tessera


def Factory(settings, model):
    if not isinstance(settings, tessera.Parameters):
        raise TypeError("expected a tessera.Parameters with the process settings")
    return tessera.CreateRegisteredProcess("IntegrationValuesExtrapolationToNodesProcess", model,
                                           settings["Parameters"])
