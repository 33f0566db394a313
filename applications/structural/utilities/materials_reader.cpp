// Materials files -> Properties, constitutive laws, element/condition assignment.
#include "utilities/materials_reader.h"

#include "kernel/core/error.h"
#include "kernel/core/value.h"
#include "kernel/core/variable_registry.h"
#include "kernel/registry/registry.h"

namespace tessera::structural {
namespace {

std::string Where(const Parameters& p) { return p.Origin() + ": key '" + p.Path() + "'"; }

// "KratosMultiphysics.StructuralMechanicsApplication.YOUNG_MODULUS" -> "YOUNG_MODULUS".
std::string WithoutModule(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

const VariableBase& VariableNamed(const Parameters& where, const std::string& name) {
  const VariableBase* v = VariableRegistry::Instance().Find(WithoutModule(name));
  if (!v)
    TESSERA_ERROR(Where(where), ": unknown variable '", name, "'",
                  VariableRegistry::Instance().Suggestions(WithoutModule(name)),
                  " (an application's variables exist once it is imported)");
  return *v;
}

Value ValueOf(const Parameters& p) {
  if (p.IsBool()) return Value(p.GetBool());
  if (p.IsInt()) return Value(p.GetInt());
  if (p.IsNumber()) return Value(p.GetDouble());
  if (p.IsString()) return Value(p.GetString());
  if (p.IsVector()) return Value(p.GetVector());
  if (p.IsMatrix()) return Value(p.GetMatrix());
  TESSERA_ERROR(Where(p), ": expected a number, bool, string, vector or matrix");
}

ModelPart& FindModelPart(Model& model, const Parameters& where, const std::string& name) {
  if (model.HasModelPart(name)) return model.GetModelPart(name);
  // Older files omit the root: "Parts_Solid" for "Structure.Parts_Solid". The
  // root that has such a sub model part, when one alone has it (a coupled
  // model also holds the DEM's roots).
  std::vector<std::string> roots;
  for (const std::string& n : model.GetModelPartNames())
    if (n.find('.') == std::string::npos && model.HasModelPart(n + "." + name)) roots.push_back(n);
  if (roots.size() == 1) return model.GetModelPart(roots[0] + "." + name);
  if (roots.size() > 1)
    TESSERA_ERROR(Where(where), ": model part '", name, "' is a sub model part of ", roots[0],
                  " and of ", roots[1], "; name it with its root (\"", roots[0], ".", name, "\")");
  std::string known;
  for (const std::string& n : model.GetModelPartNames()) known += (known.empty() ? "" : ", ") + n;
  TESSERA_ERROR(Where(where), ": no model part '", name, "' (the model has: ", known, ")");
}

void ReadEntry(Model& model, Parameters entry) {
  if (!entry.IsSubParameter())
    TESSERA_ERROR(Where(entry),
                  ": expected {\"model_part_name\", \"properties_id\", \"Material\"}");
  entry.ValidateAndAssignDefaults(
      Parameters(R"({"model_part_name": "", "properties_id": 0, "Material": {}})"));
  ModelPart& model_part =
      FindModelPart(model, entry["model_part_name"], entry.GetString("model_part_name"));
  const int id = entry.GetInt("properties_id");
  Properties::Pointer properties = model_part.CreateNewProperties(id);

  Parameters material = entry["Material"];
  material.ValidateAndAssignDefaults(
      Parameters(R"({"name": "", "constitutive_law": {}, "Variables": {}, "Tables": {}})"));
  Parameters law = material["constitutive_law"];
  if (law.Has("name")) {
    const std::string name = WithoutModule(law.GetString("name"));
    try {
      properties->SetConstitutiveLaw(Registry::Instance().CreateConstitutiveLaw(name));
    } catch (const Error& e) {
      TESSERA_ERROR(Where(law["name"]), ": ", e.what());
    }
  }
  for (const auto& [key, value] : material["Variables"]) {
    const VariableBase& variable = VariableNamed(value, key);
    try {
      properties->Data().SetValue(variable, ValueOf(value));
    } catch (const Error& e) {
      TESSERA_ERROR(Where(value), ": ", e.what());
    }
  }
  for (const auto& [key, table] : material["Tables"]) {
    Parameters t = table;
    t.ValidateAndAssignDefaults(
        Parameters(R"({"input_variable": "", "output_variable": "", "data": []})"));
    const VariableBase& x = VariableNamed(t["input_variable"], t.GetString("input_variable"));
    const VariableBase& y = VariableNamed(t["output_variable"], t.GetString("output_variable"));
    Table values(x.Name(), y.Name());
    const Parameters data = t["data"];
    for (std::size_t row = 0; row < data.size(); ++row) {
      const Parameters pair = data[row];
      if (!pair.IsVector() || pair.size() != 2)
        TESSERA_ERROR(Where(pair), ": a table row is [x, y]");
      try {
        values.AddRow(pair[0].GetDouble(), pair[1].GetDouble());
      } catch (const Error& e) {
        TESSERA_ERROR(Where(pair), ": ", e.what());
      }
    }
    properties->SetTable(x, y, std::move(values));
  }
  for (Element& e : model_part.Elements()) e.SetProperties(properties);
  for (Condition& c : model_part.Conditions()) c.SetProperties(properties);
}

}  // namespace

void ReadMaterials(Model& model, const Parameters& materials) {
  if (!materials.IsSubParameter() || !materials.Has("properties"))
    TESSERA_ERROR(materials.Origin(), ": a materials file holds {\"properties\": [...]}");
  const Parameters list = materials["properties"];
  if (!list.IsArray()) TESSERA_ERROR(Where(list), ": expected a list of properties entries");
  for (std::size_t i = 0; i < list.size(); ++i) ReadEntry(model, list[i]);
}

void ReadMaterialsFile(Model& model, const std::string& file_name) {
  ReadMaterials(model, Parameters::FromFile(file_name));
}

}  // namespace tessera::structural
