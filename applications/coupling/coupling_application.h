// The DE-FE coupling application: its conditions registered under their names.
#pragma once

namespace tessera::coupling {

// Registers the coupling's conditions (idempotent). The variables register
// when the library loads (coupling_variables.cpp).
void RegisterCouplingApplication();

}  // namespace tessera::coupling
