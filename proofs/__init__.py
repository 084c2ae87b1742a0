"""Machine-checked encodings of Li, Qardaji & Su's theorems (CP = ASIACCS 2012, TR = 2011), one
module per theorem (``cp_theorem_5.py`` is CP Thm 5), each runnable step by step with
``dps-verify prove <id>``.

This folder is the repository's top-level ``proofs/``; ``pip install`` ships it as the package
``dps_verify_proofs`` (setuptools ``package-dir``).  The kernel that checks the chains is
:mod:`dps_verify.paper.kernel`; its registry lists these modules.
"""
