import sys

from widefs.cli import main

sys.exit(main())
