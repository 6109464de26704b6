"""The runtime: tasks that run operators over stream elements (see :mod:`.elements`)."""
