"""Exact numbers and certified enclosures, parameters and their validation, errors, enums."""
