"""Structural-specific processes (tessera.structural.processes): looked up for
"kratos_module": "KratosMultiphysics.StructuralMechanicsApplication". The
kernel's generic processes (assign, fix, check, output) serve the structural
decks; this package holds the ones that only make sense for solids."""
