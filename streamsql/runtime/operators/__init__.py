"""Operators: one module per operator, each a subclass of :class:`.base.Operator`."""
