"""python -m irpool: the same as the irpool command."""
import sys

from .cli import main

sys.exit(main())
