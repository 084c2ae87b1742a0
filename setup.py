"""Package list for setuptools; everything else is in pyproject.toml.

The theorem encodings live in the repository's top-level ``proofs/`` folder (the design card's
layout) and are installed as the package ``dps_verify_proofs`` — never as a bare ``proofs``.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["dps_verify", "dps_verify.*"]), "dps_verify_proofs"],
    package_dir={"dps_verify_proofs": "proofs"},
)
