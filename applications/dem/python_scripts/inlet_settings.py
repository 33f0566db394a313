"""The "dem_inlets_settings" of ProjectParametersDEM.json: per inlet (sub model
part name of DEMInletPart), the radius table of a "discrete" or
"piecewise_linear" PROBABILITY_DISTRIBUTION, as Kratos writes it:

    "dem_inlets_settings": {
        "Inlet_1": {"random_variable_settings": {
            "possible_values": [0.01, 0.02], "relative_frequencies": [1, 3],
            "do_use_seed": true, "seed": 7}}}

("pdf_breakpoints" / "pdf_values" for piecewise_linear). Unknown keys are errors
naming the key; the tables themselves are checked by the inlet (C++).
"""
import tessera
from tessera import _dem

RANDOM_VARIABLE_KEYS = ("possible_values", "relative_frequencies", "pdf_breakpoints", "pdf_values",
                        "do_use_seed", "seed", "relative_closeness_tolerance")


def _Numbers(settings, key, where):
    entry = settings[key]
    if not entry.IsArray() or any(not entry[i].IsNumber() for i in range(entry.size())):
        raise tessera.Error(f"{where}.{key} must be a list of numbers")
    return [entry[i].GetDouble() for i in range(entry.size())]


def RadiusTables(parameters):
    """{inlet name: tessera._dem.InletRadiusTable} from parameters["dem_inlets_settings"]."""
    origin = parameters.Origin()
    all_settings = parameters["dem_inlets_settings"]
    tables = {}
    for name in all_settings.keys():
        where = f"{origin}: dem_inlets_settings.{name}"
        inlet = all_settings[name]
        if not inlet.IsSubParameter() or set(inlet.keys()) != {"random_variable_settings"}:
            raise tessera.Error(f"{where} must be an object with one key, \"random_variable_settings\"")
        settings = inlet["random_variable_settings"]
        where += ".random_variable_settings"
        if not settings.IsSubParameter():
            raise tessera.Error(f"{where} must be an object")
        unknown = sorted(set(settings.keys()) - set(RANDOM_VARIABLE_KEYS))
        if unknown:
            raise tessera.Error(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: "
                                f"{', '.join(RANDOM_VARIABLE_KEYS)}")
        table = _dem.InletRadiusTable()
        for values, weights in (("possible_values", "relative_frequencies"),
                                ("pdf_breakpoints", "pdf_values")):
            if settings.Has(values) or settings.Has(weights):
                if not (settings.Has(values) and settings.Has(weights)):
                    raise tessera.Error(f"{where}: {values} and {weights} come together")
                table.values = _Numbers(settings, values, where)
                table.weights = _Numbers(settings, weights, where)
        if not table.values:
            raise tessera.Error(f"{where}: no table (possible_values and relative_frequencies, or "
                                "pdf_breakpoints and pdf_values)")
        table.use_seed = settings["do_use_seed"].GetBool() if settings.Has("do_use_seed") else False
        table.seed = settings["seed"].GetInt() if settings.Has("seed") else 0
        tables[name] = table
    return tables
