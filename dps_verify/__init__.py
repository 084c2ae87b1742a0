"""dps_verify — machine checks of Li, Qardaji & Su, "On Sampling, Anonymization, and
Differential Privacy" (ASIACCS 2012, "CP") and its 2011 technical report ("TR").

Data flows one way: parameters -> mechanism -> exact distribution -> privacy measure ->
verdict -> report.  See ``DEVELOPERS.md`` for the module map.

The curated API (each name is imported on first use, so ``import dps_verify`` stays cheap):

- exact distributions: :func:`distribution` (CP Def. 3's "sample, then anonymize"; a lazy
  :class:`ProductDistribution` for group-factorised anonymizers, measured by cancellation),
  :class:`randomized` (mark a randomized anonymizer), :func:`pairs` (add/remove neighbours);
- privacy measures: :func:`delta` (hockey-stick, CP Def. 2), :func:`pointwise_delta` (TR Def. 2),
  :func:`epsilon`, :func:`measure`, :func:`sdgs_delta` (exact worst case of sampled strongly-safe
  k-anonymization);
- the paper's bounds: :func:`d` (CP Thm 5), :func:`amplify` (CP Thm 1), :func:`min_k`,
  :func:`min_epsilon`, :func:`max_beta`;
- testing and auditing: :func:`assert_dp` (pytest API), :func:`audit` (the package
  :mod:`dps_verify.audit`, callable as its function ``audit``), both taking a :class:`Claim`
  (β, ε, δ, definition) or the same four keyword arguments;
- vocabularies: :class:`Definition`, :class:`Neighbouring`, :class:`Bound`, :class:`AuditMethod`,
  :class:`Anonymizer`,
  the errors :class:`ParameterError`, :class:`UsageError`, :class:`CertificationError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dps_verify.core.lazy import lazy_attributes

__version__ = "0.1.0"

#: public name -> module defining it (PEP 562 lazy attributes).
_LAZY: dict[str, str] = {
    # engine
    "distribution": "dps_verify.engine.distribution",
    "randomized": "dps_verify.engine.distribution",
    "pairs": "dps_verify.engine.distribution",
    "ExactDistribution": "dps_verify.engine.distribution",
    "ProductDistribution": "dps_verify.engine.product_law",
    # measures
    "delta": "dps_verify.measures.divergence",
    "pointwise_delta": "dps_verify.measures.divergence",
    "epsilon": "dps_verify.measures.divergence",
    "measure": "dps_verify.measures.divergence",
    "sdgs_delta": "dps_verify.worstcase.sdgs",
    "d": "dps_verify.worstcase.closed_forms",
    "min_k": "dps_verify.inverse.questions",
    "min_epsilon": "dps_verify.inverse.questions",
    "max_beta": "dps_verify.inverse.questions",
    "amplify": "dps_verify.worstcase.amplification",
    # testing and auditing
    "assert_dp": "dps_verify.testing.checks",
    # ``dps_verify.audit`` is the audit package, callable as ``audit.core.audit`` itself
    "audit": "dps_verify.audit",
    # planning a release (the package dps_verify.plan, callable as its function ``plan``)
    "plan": "dps_verify.plan",
    # vocabularies
    "Anonymizer": "dps_verify.core.types",
    "AuditMethod": "dps_verify.core.types",
    "Bound": "dps_verify.core.types",
    "Claim": "dps_verify.core.types",
    "Definition": "dps_verify.core.types",
    "Neighbouring": "dps_verify.core.types",
    "Certified": "dps_verify.core.numbers",
    "DPSVerifyError": "dps_verify.core.errors",
    "ParameterError": "dps_verify.core.errors",
    "UsageError": "dps_verify.core.errors",
    "CertificationError": "dps_verify.core.errors",
}

__all__ = [
    "__version__",
    "Anonymizer",
    "AuditMethod",
    "Bound",
    "Claim",
    "CertificationError",
    "Certified",
    "DPSVerifyError",
    "Definition",
    "ExactDistribution",
    "Neighbouring",
    "ParameterError",
    "ProductDistribution",
    "UsageError",
    "amplify",
    "assert_dp",
    "audit",
    "d",
    "delta",
    "distribution",
    "epsilon",
    "max_beta",
    "measure",
    "min_epsilon",
    "min_k",
    "pairs",
    "plan",
    "pointwise_delta",
    "randomized",
    "sdgs_delta",
]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load lazily
    from dps_verify import audit, plan
    from dps_verify.core.errors import (
        CertificationError,
        DPSVerifyError,
        ParameterError,
        UsageError,
    )
    from dps_verify.core.numbers import Certified
    from dps_verify.core.types import (
        Anonymizer,
        AuditMethod,
        Bound,
        Claim,
        Definition,
        Neighbouring,
    )
    from dps_verify.engine.distribution import ExactDistribution, distribution, pairs, randomized
    from dps_verify.engine.product_law import ProductDistribution
    from dps_verify.inverse.questions import max_beta, min_epsilon, min_k
    from dps_verify.measures.divergence import delta, epsilon, measure, pointwise_delta
    from dps_verify.testing.checks import assert_dp
    from dps_verify.worstcase.amplification import amplify
    from dps_verify.worstcase.closed_forms import d
    from dps_verify.worstcase.sdgs import sdgs_delta


#: PEP 562: each name above is imported from its module on first access.
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
