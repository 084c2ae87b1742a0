"""Plot of the frontier: the smallest k against β for each measure (and ARX's loop)."""

from __future__ import annotations

import io

from dps_verify.plan.frontier import MEASURES, Frontier
from dps_verify.plan.outputs import PNG_SOFTWARE
from dps_verify.plan.report import MEASURE_LABELS


def frontier_png(f: Frontier) -> bytes:
    """PNG bytes of k against β (Agg backend; ``Software`` text = ``dps-verify plan``)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    styles = {"paper": "o-", "hockey-stick": "s-", "pointwise": "^--"}
    for m in MEASURES:
        pts = [(float(r.beta), r.by_measure[m].k) for r in f.rows if m in r.by_measure]
        if pts:
            ax.plot(*zip(*pts), styles[m], label=MEASURE_LABELS[m], markersize=4)
    arx = [(float(r.beta), r.arx_k) for r in f.rows if r.arx_k is not None]
    if arx:
        ax.plot(*zip(*arx), "x:", color="grey", label="ARX's loop (d, +1)")
    for r in f.rows:
        if r.point.is_edge:
            ax.axvline(float(r.beta), color="0.7", lw=0.8)
            ax.annotate("edge 1-e^-ε", (float(r.beta), ax.get_ylim()[0]), fontsize=7,
                        rotation=90, va="bottom", ha="right")
    ax.set_xlabel("sampling probability β")
    ax.set_ylabel("smallest k")
    ax.set_title(f"ε = {f.epsilon_text}, δ = {float(f.delta):.3g}")
    ax.legend(fontsize=7)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": PNG_SOFTWARE})
    return buf.getvalue()


__all__ = ["frontier_png"]
