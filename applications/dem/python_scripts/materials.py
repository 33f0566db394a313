"""MaterialsDEM.json (docs/file_formats.md §4): materials, material relations and the
assignation table, applied as Kratos' materials assignation does.

- Each material is one Properties object with id material_id holding its
  Variables (copied by variable name; an unknown name is an error naming the
  file, the material and the name).
- Each relation [a, b] becomes sub-properties b inside a and a inside b, holding
  the relation's Variables: the contact parameters of that pair.
- Each row [model part path, material name or id] gives every element and
  condition of that model part the material (replacing what the mdpa gave) and
  stores PROPERTIES_ID on the model part.
"""
import json
import os
import re
import warnings

import tessera


def _Load(path):
    with open(path) as f:
        text = f.read()

    def not_a_number(token):
        # JSON has no NaN or Infinity: Python's reader takes them (and a NaN
        # friction or an infinite density would then run silently), Kratos'
        # reader and tessera.Parameters do not.
        found = re.search(r'(?<![\w".])' + re.escape(token) + r'(?![\w"])', text)
        line = text.count("\n", 0, found.start()) + 1 if found else "?"
        raise tessera.Error(f"{path}:{line}: not valid JSON ({token} is not a JSON number; "
                            "values must be finite)")

    try:
        return json.loads(text, parse_constant=not_a_number)
    except json.JSONDecodeError as error:
        raise tessera.Error(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None


# The physical range of the constants a DEM deck gives, as the particles'
# Check() and the contact-law table require them: checked here too, so that
# the error names the file, the entry and the key rather than material ids.
_RANGES = {
    "YOUNG_MODULUS": (lambda x: x > 0.0, "> 0"),
    "PARTICLE_DENSITY": (lambda x: x > 0.0, "> 0"),
    "POISSON_RATIO": (lambda x: 0.0 <= x <= 0.5, "in [0, 0.5]"),
    "COEFFICIENT_OF_RESTITUTION": (lambda x: 0.0 <= x <= 1.0, "in [0, 1]"),
    "STATIC_FRICTION": (lambda x: x >= 0.0, ">= 0"),
    "DYNAMIC_FRICTION": (lambda x: x >= 0.0, ">= 0"),
    "FRICTION_DECAY": (lambda x: x >= 0.0, ">= 0 (s/m)"),
    "ROLLING_FRICTION": (lambda x: x >= 0.0, ">= 0"),
    "ROLLING_FRICTION_WITH_WALLS": (lambda x: x >= 0.0, ">= 0"),
}


def _SetVariables(properties, variables, path, owner):
    if not isinstance(variables, dict):
        raise tessera.Error(f"{path}: {owner}: \"Variables\" must be an object")
    for name, value in variables.items():
        if not tessera.HasVariable(name):
            raise tessera.Error(f"{path}: {owner}: unknown variable '{name}'"
                                f"{tessera.DidYouMean(name, tessera.VariableNames())} (import "
                                "the application that defines it, or check the spelling)")
        in_range, expected = _RANGES.get(name, (None, None))
        if (in_range is not None and isinstance(value, (int, float))
                and not isinstance(value, bool) and not in_range(value)):
            raise tessera.Error(f"{path}: {owner}: {name} must be {expected}, got {value}")
        try:
            properties.SetValue(tessera.GetVariable(name), value)
        except (tessera.Error, TypeError, ValueError) as error:
            raise tessera.Error(f"{path}: {owner}: variable {name}: {error}") from None


def _CheckContactLaw(variables, path, owner):
    """A contact law this build lacks is an error naming the file and the entry
    (it would otherwise surface at Initialize, naming only material ids)."""
    from tessera import _dem
    name = variables.get("DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME") if isinstance(variables, dict) \
        else None
    known = _dem.ContactLawNames()
    if name is None or name in known:
        return
    raise tessera.Error(f"{path}: {owner}: DEM_DISCONTINUUM_CONSTITUTIVE_LAW_NAME '{name}' is not "
                        f"supported; this build provides {', '.join(known)}")


def _CheckBondLaw(variable_sets, path, owner):
    """A continuum (bond) law's parameters (the later sets of variables over
    the earlier: a relation's over its first material's) checked where they
    are read: a value out of its physical range, a damage ratio u^f < u^l or a
    missing strength is an error naming the file, the entry and the key."""
    from tessera import _dem
    merged = {}
    for variables in variable_sets:
        if isinstance(variables, dict):
            merged.update(variables)
    name = merged.get("DEM_CONTINUUM_CONSTITUTIVE_LAW_NAME")
    if name is None:
        return
    if name not in _dem.BondLawNames().split(", "):
        # Only the continuum strategy bonds; it reports a law this build lacks
        # (decks of other strategies name Kratos' placeholder
        # "DEMContinuumConstitutiveLaw").
        return
    properties = tessera.Properties(0)
    _SetVariables(properties, merged, path, owner)
    _dem.CheckBondLaw(properties, f"{path}: {owner}")


def _VariablesUnderOneName(entry, path, owner):
    """Some Kratos versions write a material's or relation's values under
    "properties" instead of "Variables" (the DEM-FEM CoSimulation test's
    MaterialsDEM.json): the same object, read as "Variables"."""
    if isinstance(entry, dict) and "properties" in entry:
        if "Variables" in entry:
            raise tessera.Error(f"{path}: {owner} has both \"Variables\" and \"properties\" (Kratos' two "
                                "names for its values); keep one")
        entry["Variables"] = entry.pop("properties")


def ReadMaterials(path):
    """(materials by name, materials by id, relations, assignation rows) of a
    MaterialsDEM.json file, with every material as a tessera.Properties; a row
    is (model part path, Properties, "material_assignation_table[k]", the
    material's name or id as the file gives it)."""
    data = _Load(path)
    if not isinstance(data, dict):
        raise tessera.Error(f"{path}: expected an object with \"materials\", "
                            "\"material_relations\" and \"material_assignation_table\"")
    unknown = set(data) - {"materials", "material_relations", "material_assignation_table"}
    if unknown:
        raise tessera.Error(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; allowed: "
                            "materials, material_relations, material_assignation_table")
    by_name, by_id = {}, {}
    variables_by_properties = {}  # id(Properties) -> the file's variables of that material
    for k, material in enumerate(data.get("materials", [])):
        owner = f"materials[{k}]"
        _VariablesUnderOneName(material, path, owner)
        for key in ("material_name", "material_id", "Variables"):
            if key not in material:
                raise tessera.Error(f"{path}: {owner} has no \"{key}\"")
        name, material_id = material["material_name"], material["material_id"]
        if not isinstance(material_id, int) or material_id < 0:
            raise tessera.Error(f"{path}: {owner}: material_id must be an integer >= 0")
        if name in by_name or material_id in by_id:
            raise tessera.Error(f"{path}: {owner}: material '{name}' (id {material_id}) is defined "
                                "twice")
        properties = tessera.Properties(material_id)
        _CheckContactLaw(material["Variables"], path, f"{owner} ('{name}')")
        _SetVariables(properties, material["Variables"], path, f"{owner} ('{name}')")
        by_name[name] = by_id[material_id] = properties
        variables_by_properties[id(properties)] = (material["Variables"], f"{owner} ('{name}')")

    def lookup(key, owner):
        found = by_name.get(key) if isinstance(key, str) else by_id.get(key)
        if found is None:
            raise tessera.Error(f"{path}: {owner}: no material '{key}' (materials: "
                                f"{', '.join(sorted(by_name))})")
        return found

    relations = []
    related = set()  # materials in a relation (checked with it)
    for k, relation in enumerate(data.get("material_relations", [])):
        owner = f"material_relations[{k}]"
        keys = relation.get("material_names_list") or relation.get("material_ids_list")
        if not keys or len(keys) != 2:
            raise tessera.Error(f"{path}: {owner} needs material_names_list or material_ids_list "
                                "with two entries")
        a, b = lookup(keys[0], owner), lookup(keys[1], owner)
        _VariablesUnderOneName(relation, path, owner)
        _CheckContactLaw(relation.get("Variables", {}), path, owner)
        _CheckBondLaw([variables_by_properties[id(a)][0], variables_by_properties[id(b)][0],
                       relation.get("Variables", {})], path, owner)
        related.update((id(a), id(b)))
        relations.append((a, b, relation.get("Variables", {}), owner))

    for key, (variables, owner) in variables_by_properties.items():
        if key not in related:
            _CheckBondLaw([variables], path, owner)

    rows = []
    for k, row in enumerate(data.get("material_assignation_table", [])):
        owner = f"material_assignation_table[{k}]"
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str)):
            raise tessera.Error(f"{path}: {owner} must be [model part path, material]")
        rows.append((row[0], lookup(row[1], owner), owner, row[1]))
    return by_name, by_id, relations, rows


def AssignMaterials(model, path, unread_files=None, roots=None):
    """Applies the materials file at `path` to the model parts of `model`
    (with `roots`, a list of root names: to theirs only).

    `unread_files` ({root name: why its mdpa was not read}, from the DEM stage)
    explains a row whose model part is missing or empty because its file was
    not read: a missing one is an error that says so, an empty one a warning
    (the run goes on without those walls, clusters or inlets)."""
    if not os.path.isfile(path):
        raise tessera.Error(f"materials file '{path}' not found")
    unread_files = unread_files or {}
    _, _, relations, rows = ReadMaterials(path)
    for a, b, variables, owner in relations:
        for first, second in ((a, b), (b, a)):
            sub = tessera.Properties(second.Id)
            _SetVariables(sub, variables, path, owner)
            first.AddSubProperties(sub)
    for model_part_path, properties, owner, material in rows:
        if roots is not None and model_part_path.split(".")[0] not in roots:
            continue
        unread = unread_files.get(model_part_path.split(".")[0])
        if not model.HasModelPart(model_part_path):
            raise tessera.Error(f"{path}: {owner}: no model part '{model_part_path}' ("
                                + (f"{unread}; " if unread else "")
                                + f"model parts: {', '.join(sorted(model.GetModelPartNames()))})")
        model_part = model.GetModelPart(model_part_path)
        if unread and model_part.NumberOfElements() == 0 and model_part.NumberOfConditions() == 0:
            warnings.warn(f"{path}: {owner} gives material '{material}' to {model_part_path}, "
                          f"which is empty: {unread}; the run goes on without it", stacklevel=3)
        model_part.AddProperties(properties)
        for element in model_part.Elements:
            element.SetProperties(properties)
        for condition in model_part.Conditions:
            condition.SetProperties(properties)
        model_part.SetValue(tessera.PROPERTIES_ID, properties.Id)
