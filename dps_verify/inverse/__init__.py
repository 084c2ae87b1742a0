"""Inverse questions and composition: the smallest k, smallest ε and largest β for a target δ,
their float screens, and the certified δ of T independent releases (discrete and sparse PLDs)."""
