"""``python -m streamsql`` is the ``streamsql`` command."""

import sys

from streamsql.cli import main

sys.exit(main())
