// The structural application: solid elements, load conditions and elastic laws
// registered under Kratos' names.
#pragma once

namespace tessera::structural {

// Registers the elements, conditions and constitutive laws (idempotent). The
// variables register when the library loads (structural_variables.cpp).
void RegisterStructuralApplication();

}  // namespace tessera::structural
