"""Tessera: particles interacting with structures.

The kernel (model parts, nodes, elements, variables, IO) comes from the C++
extension `tessera._tessera`; applications are sub-packages (`tessera.dem`,
`tessera.structural`, ...) that register their components when imported.
Every registered variable and flag is an attribute: `tessera.VELOCITY`.
"""
import pkgutil as _pkgutil

# Plugins built out of tree install their own `tessera/<name>` folder elsewhere
# on sys.path; extending __path__ makes them sub-packages of this one.
__path__ = _pkgutil.extend_path(__path__, __name__)

from ._tessera import *  # noqa: E402,F401,F403
from ._tessera import _registered_names  # noqa: E402

__version__ = "0.1.0"


def export_registered_names(namespace=None):
    """Makes every registered variable and flag an attribute of `namespace`
    (this package by default). Applications call it after registering theirs."""
    target = globals() if namespace is None else namespace
    for name, obj in _registered_names().items():
        target.setdefault(name, obj)


export_registered_names()
