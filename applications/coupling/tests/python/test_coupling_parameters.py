"""ProjectParametersCoupling.json (coupling_parameters.py): defaults for a
folder without it, and bad input as an error naming the file and the key."""
import json

import pytest

import tessera
from tessera.coupling.coupling_parameters import DEFAULTS, CouplingOptions


def test_no_file_gives_the_documented_defaults():
    assert CouplingOptions(None) == DEFAULTS
    assert CouplingOptions(None)["adm_force"] == "thesis"
    assert CouplingOptions(None)["transfer_method"] == "area_distributed"


def test_adm_force_takes_the_energy_consistent_forces():
    assert CouplingOptions({"adm_force": "energy_gradient"})["adm_force"] == "energy_gradient"


@pytest.mark.parametrize("given, message", [
    ({"adm_force": "gradient"}, r"key 'adm_force' is 'gradient'; expected \"thesis\" or \"energy_gradient\""),
    ({"adm_sphere_force": "thesis"}, r"unknown key\(s\) adm_sphere_force; allowed: adm_force, "),
    ({"transfer_method": "mortar"}, r"key 'transfer_method' is 'mortar'"),
    ({"fe_time_step_fraction": 1.5}, r"key 'fe_time_step_fraction' is 1.5; expected a number in \(0, 1\]"),
    ({"energy_samples": 0}, r"key 'energy_samples' is 0; expected a positive integer"),
    ({"overlap_structure_and_dem": 1}, r"key 'overlap_structure_and_dem' is 1; expected true, false or \"auto\""),
])
def test_a_bad_key_or_value_names_the_file_and_the_key(tmp_path, given, message):
    path = tmp_path / "ProjectParametersCoupling.json"
    path.write_text(json.dumps(given))
    with pytest.raises(tessera.Error, match=str(path).replace(".", r"\.") + ": " + message):
        CouplingOptions(str(path))


def test_malformed_json_names_the_file_and_line(tmp_path):
    path = tmp_path / "ProjectParametersCoupling.json"
    path.write_text('{\n  "adm_force": "thesis",\n  "echo_level" 0\n}\n')
    with pytest.raises(tessera.Error, match=str(path).replace(".", r"\.") + r":3: not valid JSON"):
        CouplingOptions(str(path))
