"""The runtime: tasks that run operators over stream elements (see :mod:`streamsql.core.elements`).

:mod:`.builder` turns a plan into source drivers, tasks and a checkpoint coordinator;
:mod:`.job` runs that graph under checkpoints and restarts it after a failure.
"""
