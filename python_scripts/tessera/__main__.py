"""`python3 -m tessera ...`: the same command line as the `tessera` launcher."""
import sys

from .cli import main

sys.exit(main())
