"""tessera.laplace: the example application built out of tree.

Importing it registers LaplacianElement2D3N and the variable LAPLACE_SOURCE,
which then appear as attributes of this module and of `tessera`.
"""
import tessera
from tessera import _laplace  # noqa: F401  (registers the application)

tessera.export_registered_names(globals())
tessera.export_registered_names()
