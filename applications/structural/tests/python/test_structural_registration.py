"""The structural application registers Kratos' names, reads Kratos' materials
files onto the model, and its elements check their input with clear errors."""
import os

import pytest

import tessera
import tessera.structural as structural

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "shared", "kratos_cases")
PATCH = os.path.abspath(os.path.join(SHARED, "sm_patch_tests", "patch_test"))

ELEMENTS = [f"{formulation}Element{geometry}" for formulation in ("SmallDisplacement", "TotalLagrangian")
            for geometry in ("2D3N", "2D4N", "3D4N", "3D8N")]
CONDITIONS = ["PointLoadCondition2D1N", "PointLoadCondition3D1N", "LineLoadCondition2D2N",
              "SurfaceLoadCondition3D3N", "SurfaceLoadCondition3D4N"]
LAWS = ["LinearElastic3DLaw", "LinearElasticPlaneStrain2DLaw", "LinearElasticPlaneStress2DLaw",
        "KirchhoffSaintVenant3DLaw", "KirchhoffSaintVenantPlaneStrain2DLaw", "HyperElastic3DLaw",
        "HyperElasticPlaneStrain2DLaw"]


def test_names_are_registered_by_the_structural_application():
    for name in ELEMENTS:
        assert tessera.Registry.HasElement(name), name
    for name in CONDITIONS:
        assert tessera.Registry.HasCondition(name), name
    for name in LAWS:
        assert tessera.Registry.HasConstitutiveLaw(name), name
    assert tessera.Registry.ApplicationOf("TotalLagrangianElement3D8N") == "structural"
    for name in ("CAUCHY_STRESS_VECTOR", "PK2_STRESS_VECTOR", "GREEN_LAGRANGE_STRAIN_VECTOR",
                 "VON_MISES_STRESS", "INTEGRATION_ORDER"):
        assert hasattr(tessera, name) and hasattr(structural, name), name


def _read_patch(model, deck, materials):
    mp = model.CreateModelPart("Structure")
    for variable in (tessera.DISPLACEMENT, tessera.REACTION):
        mp.AddNodalSolutionStepVariable(variable)
    tessera.ModelPartIO(os.path.join(PATCH, deck)).ReadModelPart(mp)
    structural.ReadMaterialsFile(model, os.path.join(PATCH, materials))
    return mp


def test_materials_file_assigns_properties_and_law_to_the_model_part():
    model = tessera.Model()
    mp = _read_patch(model, "small_disp/patch_test_2D_shear_tri", "materials_2D.json")
    for element in mp.Elements:
        properties = element.GetProperties()
        assert properties.Id == 1
        assert properties[tessera.YOUNG_MODULUS] == 1000.0
        assert properties[tessera.POISSON_RATIO] == 0.3
        assert properties[tessera.THICKNESS] == 1.0
        assert structural.GetConstitutiveLawName(properties) == "LinearElasticPlaneStrain2DLaw"
    # the load conditions are not in Parts_Parts_Auto1: they keep the mdpa's properties 0
    for condition in mp.Conditions:
        assert condition.GetProperties().Id == 0


def test_materials_errors_name_file_and_key(tmp_path):
    model = tessera.Model()
    mp = model.CreateModelPart("Structure")
    mp.CreateSubModelPart("Parts_Solid")
    bad_law = tmp_path / "m1.json"
    bad_law.write_text('{"properties": [{"model_part_name": "Structure.Parts_Solid", "properties_id": 1,'
                       ' "Material": {"constitutive_law": {"name": "LinearElastic3DLow"}}}]}')
    with pytest.raises(tessera.Error, match=r"m1\.json.*constitutive_law\.name.*LinearElastic3DLaw"):
        structural.ReadMaterialsFile(model, str(bad_law))
    bad_variable = tmp_path / "m2.json"
    bad_variable.write_text('{"properties": [{"model_part_name": "Parts_Solid", "properties_id": 1,'
                            ' "Material": {"Variables": {"YOUNG_MODULOS": 1.0}}}]}')
    with pytest.raises(tessera.Error, match=r"m2\.json.*YOUNG_MODULOS.*YOUNG_MODULUS"):
        structural.ReadMaterialsFile(model, str(bad_variable))
    bad_part = tmp_path / "m3.json"
    bad_part.write_text('{"properties": [{"model_part_name": "Structure.Parts_Fluid", "properties_id": 1,'
                        ' "Material": {}}]}')
    with pytest.raises(tessera.Error, match=r"m3\.json.*Parts_Fluid.*Structure\.Parts_Solid"):
        structural.ReadMaterialsFile(model, str(bad_part))
    # the root may be omitted, as older Kratos files do; prefixed names are understood
    good = tmp_path / "m4.json"
    good.write_text('{"properties": [{"model_part_name": "Parts_Solid", "properties_id": 7, "Material": {'
                    '"constitutive_law": {"name": "StructuralMechanicsApplication.HyperElastic3DLaw"},'
                    '"Variables": {"KratosMultiphysics.YOUNG_MODULUS": 5.0, "VOLUME_ACCELERATION": [0, 0, -9.81]},'
                    '"Tables": {"t": {"input_variable": "TEMPERATURE", "output_variable": "YOUNG_MODULUS",'
                    '"data": [[0.0, 5.0], [100.0, 4.0]]}}}}]}')
    structural.ReadMaterialsFile(model, str(good))
    properties = mp.GetProperties(7)
    assert properties[tessera.YOUNG_MODULUS] == 5.0
    assert list(properties[tessera.VOLUME_ACCELERATION]) == [0.0, 0.0, -9.81]
    assert properties.GetTable(tessera.TEMPERATURE, tessera.YOUNG_MODULUS).GetValue(50.0) == pytest.approx(4.5)
    assert structural.GetConstitutiveLawName(properties) == "HyperElastic3DLaw"


def test_element_check_names_what_is_missing():
    model = tessera.Model()
    mp = _read_patch(model, "small_disp/patch_test_2D_shear_tri", "materials_2D.json")
    info = mp.ProcessInfo
    element = mp.GetElement(1)
    with pytest.raises(tessera.Error, match=r"SmallDisplacementElement2D3N #1.*node 5.*DISPLACEMENT_X"):
        element.Check(info)
    for node in mp.Nodes:
        for component in (tessera.DISPLACEMENT_X, tessera.DISPLACEMENT_Y):
            node.AddDof(component)
    assert element.Check(info) == 0
    # a 3D law on a 2D element
    structural.SetConstitutiveLaw(element.GetProperties(), "LinearElastic3DLaw")
    with pytest.raises(tessera.Error, match=r"LinearElastic3DLaw is for 3D.*needs a 2D law"):
        element.Check(info)
    structural.SetConstitutiveLaw(element.GetProperties(), "LinearElasticPlaneStrain2DLaw")
    element.GetProperties()[tessera.POISSON_RATIO] = 0.5
    with pytest.raises(tessera.Error, match=r"POISSON_RATIO must lie in \(-1, 0.5\)"):
        element.Check(info)
