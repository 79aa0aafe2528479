"""`python -m flows.cli ...`: the `hindsight` command without its installed script."""
import sys

from flows.cli.main import main

sys.exit(main())
