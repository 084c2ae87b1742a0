"""Fingerprints of the theorem statements as reviewed against the paper (CP = ASIACCS 2012,
TR = 2011).

A statement (``STATEMENT`` of a ``proofs/`` module) is proved only while its fingerprint (see
:attr:`dps_verify.paper.kernel.statement.Statement.fingerprint`) is the one recorded here:
changing a statement is a visible act -- re-read it beside the paper, then update its line
(``python -m dps_verify.paper.kernel.reviewed`` prints the current ones).
"""

from __future__ import annotations

FINGERPRINTS: dict[str, str] = {
    "cp-theorem-1": "f192c124d240b8eb",
    "cp-theorem-2": "df02f9c3f39925dd",
    "cp-theorem-3": "09e3e32a3111a927",
    "cp-proposition-4": "5ada61f63395c5f7",
    "cp-theorem-5": "1325f611b8d1b108",
    "cp-theorem-6": "da213cc36c7e7afc",
    "cp-theorem-6-full-data": "6632bd5c2394f6bd",
    "tr-definition-2": "a4aee980269c056c",
    "tr-theorem-2": "9caa01c39a0c71b2",
    "tr-theorem-3": "a18f63f648065902",
    "tr-theorem-5": "9da6228ab7dde6ad",
    "tr-theorem-6": "c386c4011aace78e",
    "plan-utility-sensitivity": "fadfc68cff2da88d",  # a project lemma (dps-verify plan), not the paper's
}

if __name__ == "__main__":  # pragma: no cover
    from dps_verify.paper.kernel import THEOREMS

    for key, mod in THEOREMS.items():
        st = getattr(mod, "STATEMENT", None)
        print(f'    "{key}": "{st.fingerprint if st else "no STATEMENT"}",')
