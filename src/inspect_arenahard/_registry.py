"""Inspect entry point: importing this module registers every task, solver and scorer."""
