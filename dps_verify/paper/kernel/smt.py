"""SMT back end of the proofs: two solvers, a vacuity check and standard SMT-LIB 2 export.

One obligation is a :class:`Query`: hypotheses ``A`` and a claim ``C`` (z3 expressions).  It is
*discharged* (:func:`discharge`) in three parts:

* **vacuity** -- z3 must find a model of ``A`` (checked by evaluating ``A`` in it); an
  unsatisfiable hypothesis set makes every claim "provable", so it is an error, never PROVED;
* **z3** on the in-memory formula ``A and not C``;
* **cvc5** on the SMT-LIB 2 text of the same formula (:func:`to_smtlib`), with a per-query
  resource limit (deterministic: see :data:`Z3_RLIMIT`).  A PROVED claim needs both ``unsat``; ``sat`` from one solver and ``unsat`` from the
  other is a loud failure (:data:`DISAGREE`).

The SMT-LIB printer is ours (z3's own prints a unary ``(+ x)`` and leaves primed symbols
unquoted, which other solvers reject); both solvers parse its output (tested).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

#: Per-query limits are deterministic resource limits (z3's ``rlimit``, cvc5's ``rlimit-per``:
#: counts of solver work, the same on an idle and on a loaded machine), so a verdict never
#: depends on the load.  Margins: over every query of ``dps-verify prove all`` the largest z3
#: use is about 3.3e5 units and the largest cvc5 use about 1.3e5 (cvc5 answers ``unknown``
#: on some finite instances after at most ~9e3 units, by incompleteness, not by its limit);
#: the limits are 60x and 37x those, 15x for the finite instances.  An exhausted limit is
#: ``unknown`` (OPEN), never ``unsat``.
Z3_RLIMIT = 20_000_000
CVC5_RLIMIT = 5_000_000
#: cvc5's limit on finite-instance (CHECKED-BOUNDED) queries and finite controls.
CVC5_BOUNDED_RLIMIT = 200_000
#: A wall-clock guard against a solver that stops counting its work (cvc5's documentation
#: notes subroutines that spend no resource units); far above any query's time, so it is never
#: what decides a verdict of ``prove all``.
HANG_GUARD_MS = 600_000

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"
#: Marker for two solvers contradicting each other on one query.
DISAGREE = "solvers disagree"


@dataclass
class Query:
    """One SMT obligation: ``And(hypotheses) => claim`` (``expect="unsat"`` for the negation),
    or, for an existence step (``kind="exists"``), ``And(hypotheses + [claim])`` is satisfiable."""

    hypotheses: list[z3.BoolRef]
    claim: z3.BoolRef
    kind: str = "implies"  # or "exists"
    answers: dict[str, str] = field(default_factory=dict)
    vacuity: dict[str, str] = field(default_factory=dict)
    model: dict[str, str] | None = None
    seconds: float = 0.0

    def main_formula(self) -> list[z3.BoolRef]:
        if self.kind == "exists":
            return [*self.hypotheses, self.claim]
        return [*self.hypotheses, z3.Not(self.claim)]

    def smtlib(self) -> str:
        what = ("existence claim: the hypotheses and the claim together (expected sat)"
                if self.kind == "exists" else "hypotheses and the negated claim (expected unsat)")
        return to_smtlib(self.main_formula(), comment=what)

    def vacuity_smtlib(self) -> str:
        return to_smtlib(self.hypotheses, comment="hypotheses alone (expected sat: not vacuous)")


# ------------------------------------------------------------------------- printing

_SIMPLE = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*\Z")
_RESERVED = {"as", "let", "exists", "forall", "match", "par", "_", "!", "true", "false",
             "and", "or", "not", "ite", "distinct", "BINARY", "DECIMAL", "HEXADECIMAL",
             "NUMERAL", "STRING"}
_OPS = {
    z3.Z3_OP_ADD: "+", z3.Z3_OP_SUB: "-", z3.Z3_OP_MUL: "*", z3.Z3_OP_DIV: "/",
    z3.Z3_OP_IDIV: "div", z3.Z3_OP_MOD: "mod", z3.Z3_OP_UMINUS: "-", z3.Z3_OP_LE: "<=",
    z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">", z3.Z3_OP_EQ: "=",
    z3.Z3_OP_DISTINCT: "distinct", z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or",
    z3.Z3_OP_NOT: "not", z3.Z3_OP_IMPLIES: "=>", z3.Z3_OP_ITE: "ite",
    z3.Z3_OP_TO_REAL: "to_real", z3.Z3_OP_TO_INT: "to_int", z3.Z3_OP_IS_INT: "is_int",
    z3.Z3_OP_IFF: "=", z3.Z3_OP_XOR: "xor",
}
_UNIT = {"+": "0", "*": "1", "and": "true", "or": "false"}


def symbol(name: str) -> str:
    """An SMT-LIB symbol for ``name``: simple when allowed, otherwise ``|quoted|``."""
    if _SIMPLE.match(name) and name not in _RESERVED:
        return name
    if "|" in name or "\\" in name:
        raise ValueError(f"symbol {name!r} cannot be written in SMT-LIB")
    return f"|{name}|"


def _numeral(e: z3.ExprRef) -> str:
    real = e.sort() == z3.RealSort()
    frac = e.as_fraction() if real else None
    p, q = (frac.numerator, frac.denominator) if frac is not None else (e.as_long(), 1)

    def nat(x: int) -> str:
        return f"{x}.0" if real else str(x)

    body = nat(abs(p)) if q == 1 else f"(/ {nat(abs(p))} {nat(q)})"
    return body if p >= 0 else f"(- {body})"


#: The printed text and the declarations of every z3 node printed so far in this process,
#: keyed by (context, AST id); each entry holds its node, so the id is not reused while the
#: entry lives.  The queries of one proof share most of their hypotheses (z3 hash-conses equal
#: terms into one AST), so each shared term is printed once.  Cleared when it reaches
#: :data:`_PRINTED_LIMIT` entries.
_PRINTED: dict[tuple[int, int], tuple[z3.ExprRef, str, dict[str, str]]] = {}
_PRINTED_LIMIT = 200_000


def _node_key(e: z3.ExprRef) -> tuple[int, int]:
    return id(e.ctx), e.get_id()


def _print(e: z3.ExprRef, decls: dict[str, str]) -> str:
    key = _node_key(e)
    hit = _PRINTED.get(key)
    if hit is None:
        mine: dict[str, str] = {}
        hit = (e, _print_node(e, mine), mine)
        if len(_PRINTED) >= _PRINTED_LIMIT:
            _PRINTED.clear()
        _PRINTED[key] = hit
    decls.update(hit[2])
    return hit[1]


#: Operators of :data:`_OPS` whose nodes the fast path prints (the Int/Real conversions go
#: through :func:`_print_node_general`).
_FAST_OPS = {k: v for k, v in _OPS.items() if v not in ("to_real", "to_int", "is_int")}


def _print_node(e: z3.ExprRef, decls: dict[str, str]) -> str:
    """The SMT-LIB text of one node: :func:`_print_node_general` on the kinds of node the
    proofs' formulas are made of -- true/false, Int and Real numerals, Int/Real/Bool constants
    and the arithmetic and Boolean operators -- read with a few direct calls of z3's C API
    (the same tests as z3's ``is_true``, ``is_int_value``, ``is_const``, ... and the same
    children, without the Python wrappers' repeated lookups); every other node goes to
    :func:`_print_node_general`."""
    c, a = e.ctx_ref(), e.as_ast()
    if z3.Z3_get_ast_kind(c, a) in (z3.Z3_NUMERAL_AST, z3.Z3_APP_AST):
        kind = z3.Z3_get_decl_kind(c, z3.Z3_get_app_decl(c, a))
        if kind == z3.Z3_OP_TRUE:
            return "true"
        if kind == z3.Z3_OP_FALSE:
            return "false"
        n = z3.Z3_get_app_num_args(c, a)
        sort = z3.Z3_get_sort_kind(c, z3.Z3_get_sort(c, a))
        if kind == z3.Z3_OP_ANUM and isinstance(e, (z3.IntNumRef, z3.RatNumRef)):
            return _numeral(e)
        if kind == z3.Z3_OP_UNINTERPRETED and n == 0 and sort in _CONST_SORTS:
            name = e.decl().name()
            decls[name] = _CONST_SORTS[sort]
            return symbol(name)
        op = _FAST_OPS.get(kind)
        if op is not None:
            args = [_print(_expr_ref(z3.Z3_get_app_arg(c, a, i), e.ctx), decls)
                    for i in range(n)]
            if not args:
                return _UNIT[op]
            if len(args) == 1 and op in ("+", "*", "and", "or"):
                return args[0]  # z3 keeps unary sums/products; SMT-LIB needs two arguments
            return f"({op} {' '.join(args)})"
    return _print_node_general(e, decls)


#: The declared sort of a constant by z3's sort kind (as :func:`_print_node_general` names it).
_CONST_SORTS = {z3.Z3_REAL_SORT: "Real", z3.Z3_INT_SORT: "Int", z3.Z3_BOOL_SORT: "Bool"}
#: z3's wrapper of a child AST (what ``ExprRef.children()`` returns for each child).
_expr_ref = z3.z3._to_expr_ref


def _print_node_general(e: z3.ExprRef, decls: dict[str, str]) -> str:
    if z3.is_true(e):
        return "true"
    if z3.is_false(e):
        return "false"
    if z3.is_int_value(e) or z3.is_rational_value(e):
        return _numeral(e)
    if z3.is_algebraic_value(e):
        raise ValueError(f"algebraic number {e} cannot be exported")
    if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
        name = e.decl().name()
        sort = e.sort()
        decls[name] = "Real" if sort == z3.RealSort() else (
            "Int" if sort == z3.IntSort() else "Bool")
        return symbol(name)
    if z3.is_app(e):
        kind = e.decl().kind()
        if kind not in _OPS:
            raise ValueError(f"cannot export {e.decl().name()} to SMT-LIB")
        op = _OPS[kind]
        if op in ("to_real", "to_int", "is_int"):
            decls[" mixed"] = "Int"  # the Int/Real conversions need the mixed logic
            inner = e.children()[0]
            if op == "to_real" and z3.is_int_value(inner):
                return _numeral(z3.RealVal(inner.as_long()))
        args = [_print(a, decls) for a in e.children()]
        if not args:
            return _UNIT[op]
        if len(args) == 1 and op in ("+", "*", "and", "or"):
            return args[0]  # z3 keeps unary sums/products; SMT-LIB needs two arguments
        return f"({op} {' '.join(args)})"
    raise ValueError(f"cannot export {e} to SMT-LIB")


def to_smtlib(assertions: Sequence[z3.BoolRef], comment: str = "") -> str:
    """Standard SMT-LIB 2.6 script asserting ``assertions`` and asking ``(check-sat)``."""
    decls: dict[str, str] = {}
    body = [_print(a, decls) for a in assertions]
    sorts = set(decls.values())
    if "Int" in sorts and ("Real" in sorts or " mixed" in decls):
        logic = "QF_NIRA"
    elif "Int" in sorts:
        logic = "QF_NIA"
    else:
        logic = "QF_NRA"
    lines = [f"; {comment}"] if comment else []
    lines.append(f"(set-logic {logic})")
    lines += [f"(declare-fun {symbol(n)} () {s})" for n, s in sorted(decls.items())
              if n != " mixed"]
    lines += [f"(assert {b})" for b in body]
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------- solving


#: Whether each z3 node seen so far is quantifier-free and free of integer constants, keyed
#: like :data:`_PRINTED` (and holding its node); cleared at :data:`_PRINTED_LIMIT` entries.
_PURE: dict[tuple[int, int], tuple[z3.ExprRef, bool]] = {}


def _pure_real_node(e: z3.ExprRef) -> bool:
    key = _node_key(e)
    hit = _PURE.get(key)
    if hit is not None:
        return hit[1]
    # read with z3's C API as in _print_node: is_quantifier, is_const (an application without
    # arguments: a numeral or a symbol), its sort, and the children of an application
    c, a = e.ctx_ref(), e.as_ast()
    if z3.is_quantifier(e):
        pure = False
    elif z3.Z3_get_ast_kind(c, a) not in (z3.Z3_NUMERAL_AST, z3.Z3_APP_AST):
        pure = True  # a bound variable: no children
    elif (n := z3.Z3_get_app_num_args(c, a)) == 0:
        pure = z3.Z3_get_sort_kind(c, z3.Z3_get_sort(c, a)) != z3.Z3_INT_SORT
    else:
        pure = all(_pure_real_node(_expr_ref(z3.Z3_get_app_arg(c, a, i), e.ctx))
                   for i in range(n))
    if len(_PURE) >= _PRINTED_LIMIT:
        _PURE.clear()
    _PURE[key] = (e, pure)
    return pure


def _pure_real(formulas: Sequence[z3.ExprRef]) -> bool:
    """No quantifier and no integer constant (numeral or symbol) anywhere in ``formulas``: z3's
    QF_NRA solver applies."""
    return all(_pure_real_node(f) for f in formulas)


def _z3_solver(formulas: Sequence[z3.BoolRef], rlimit: int,
               timeout_ms: int = HANG_GUARD_MS, *, pure: bool | None = None,
               ctx: z3.Context | None = None) -> z3.Solver:
    if pure is None:
        pure = _pure_real(formulas)
    s = z3.SolverFor("QF_NRA", ctx=ctx) if pure else z3.Solver(ctx=ctx)
    s.set("rlimit", rlimit)  # relative to the context's count at this check
    s.set("timeout", timeout_ms)
    s.add(*formulas)
    return s


def model_dict(model: z3.ModelRef) -> dict[str, str]:
    """A z3 model as ``{name: exact value}`` (algebraic numbers to 20 digits, marked ``~``)."""
    out: dict[str, str] = {}
    for d in model.decls():
        if d.arity() > 0 or d.name().startswith("/"):
            continue
        val = model[d]
        if z3.is_rational_value(val):
            out[d.name()] = str(val.as_fraction())
        elif z3.is_algebraic_value(val):
            out[d.name()] = "~" + val.approx(20).as_decimal(20).rstrip("?")
        else:
            out[d.name()] = str(val)
    return dict(sorted(out.items()))


#: z3's answers (``sat`` with its model, or ``unsat``) on the formula lists asked so far in this
#: process, keyed by their nodes (see :data:`_PRINTED`) and the limits; the proofs ask the
#: same hypothesis sets again for the vacuity checks of steps that share them.  ``unknown`` is
#: never kept (a wall-clock guard may have decided it).  Cleared at :data:`_ANSWERS_LIMIT`.
_ANSWERS: dict[tuple[Any, ...], tuple[list[z3.BoolRef], str, dict[str, str] | None]] = {}
_ANSWERS_LIMIT = 20_000


def _confirmed(s: z3.Solver, formulas: Sequence[z3.BoolRef]) -> z3.ModelRef | None:
    """The solver's model when every formula evaluates to true in it (model completion)."""
    m = s.model()
    return m if all(z3.is_true(m.eval(f, model_completion=True)) for f in formulas) else None


def _fresh_model(formulas: Sequence[z3.BoolRef], rlimit: int, timeout_ms: int,
                 pure: bool) -> dict[str, str] | None:
    """A model of ``formulas`` found in a new z3 context (``None``: none confirmed there).

    Which model z3 returns depends on its internal term numbering, hence, in the shared
    context, on every term the process created before; in a new context the formulas are
    numbered afresh, so the model is a function of the formulas alone."""
    ctx = z3.Context()
    moved = [f.translate(ctx) for f in formulas]
    s = _z3_solver(moved, rlimit, timeout_ms, pure=pure, ctx=ctx)
    if s.check() != z3.sat:
        return None
    m = _confirmed(s, moved)
    return None if m is None else model_dict(m)


def z3_check(formulas: Sequence[z3.BoolRef], rlimit: int = Z3_RLIMIT,
             timeout_ms: int = HANG_GUARD_MS, *,
             model: bool = True) -> tuple[str, dict[str, str] | None]:
    """z3's answer on ``And(formulas)`` within ``rlimit`` units of work; a ``sat`` model is
    re-checked by evaluating every formula in it (model completion) -- an unconfirmed model is
    reported ``unknown``.  With ``model=False`` the model is not returned (a vacuity check).

    The returned model is the one z3 finds for ``formulas`` in a new context (the shared
    context's, should that search not confirm one), so the same formulas give the same model
    whatever the process asked z3 before."""
    key = (tuple(_node_key(f) for f in formulas), rlimit, timeout_ms)
    hit = _ANSWERS.get(key)
    if hit is not None and (hit[1] == UNSAT or hit[2] is not None or not model):
        return hit[1], (dict(hit[2]) if model and hit[2] is not None else None)
    pure = _pure_real(formulas)
    s = _z3_solver(formulas, rlimit, timeout_ms, pure=pure)
    res = s.check()
    if res == z3.unsat:
        answer, found = UNSAT, None
    elif res == z3.sat and _confirmed(s, formulas) is not None:
        answer = SAT
        found = (_fresh_model(formulas, rlimit, timeout_ms, pure)
                 or model_dict(s.model())) if model else None
    else:
        return UNKNOWN, None
    if len(_ANSWERS) >= _ANSWERS_LIMIT:
        _ANSWERS.clear()
    _ANSWERS[key] = (list(formulas), answer, found)
    return answer, (dict(found) if found is not None else None)


#: cvc5's answers on the scripts asked so far in this process (by text and limit: its
#: resource limit makes an answer a function of them): ``sat``, ``unsat``, and ``unknown``
#: when cvc5 gives a deterministic reason for it (:data:`_CVC5_KEPT_UNKNOWN`), never an
#: ``unknown`` from the wall-clock guard or another cause.
_CVC5_ANSWERS: dict[tuple[str, int], str] = {}
#: cvc5's printed ``unknown`` answers that are a function of the script and the limit alone:
#: an incomplete procedure giving up, or the resource limit (counted work) spent.
_CVC5_KEPT_UNKNOWN = frozenset({"unknown (INCOMPLETE)", "unknown (RESOURCEOUT)"})


def cvc5_check(text: str, rlimit: int = CVC5_RLIMIT) -> str:
    """cvc5's answer on an SMT-LIB 2 script (parsed by cvc5's own parser) within ``rlimit``
    units of work per check (``rlimit-per``; the wall-clock guard ``tlimit-per`` only against
    a hang)."""
    hit = _CVC5_ANSWERS.get((text, rlimit))
    if hit is not None:
        return hit
    import cvc5

    solver = cvc5.Solver()
    solver.setOption("rlimit-per", str(rlimit))
    solver.setOption("tlimit-per", str(HANG_GUARD_MS))
    sm = cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, sm)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    answer, kept = UNKNOWN, False
    while True:
        cmd = parser.nextCommand()
        if cmd.isNull():
            break
        out = cmd.invoke(solver, sm).strip()
        if out in (SAT, UNSAT, UNKNOWN):
            answer, kept = out, out != UNKNOWN
        elif out.startswith(UNKNOWN):  # cvc5 prints its reason: "unknown (INCOMPLETE)"
            answer, kept = UNKNOWN, out in _CVC5_KEPT_UNKNOWN
    if kept:
        if len(_CVC5_ANSWERS) >= _ANSWERS_LIMIT:
            _CVC5_ANSWERS.clear()
        _CVC5_ANSWERS[(text, rlimit)] = answer
    return answer


def discharge(q: Query, *, cvc5_rlimit: int = CVC5_RLIMIT, z3_rlimit: int = Z3_RLIMIT) -> Query:
    """Run the vacuity check, z3 and cvc5 on ``q`` (answers recorded on ``q``).

    z3 is asked the main formula first: a model of it that every formula evaluates true in is
    a model of the hypotheses too, so the vacuity check is then answered ``sat`` by that model;
    otherwise z3 is asked the hypotheses alone.  The main answers are recorded only when the
    hypotheses are satisfiable."""
    t0 = time.perf_counter()
    main = q.main_formula()
    z, model = z3_check(main, z3_rlimit)
    vac = SAT if z == SAT else z3_check(q.hypotheses, z3_rlimit, model=False)[0]
    q.vacuity = {"z3": vac}
    if vac == SAT:
        q.model = model
        q.answers = {"z3": z, "cvc5": cvc5_check(q.smtlib(), cvc5_rlimit)}
    q.seconds = time.perf_counter() - t0
    return q


def verdict_of(q: Query) -> str:
    """``proved``, ``refuted``, ``vacuous``, ``disagree`` or ``unknown`` for a discharged query.

    An implication is proved when the hypotheses are satisfiable and both solvers say unsat;
    refuted when z3 returns a model it re-checked (and cvc5 does not say unsat).  An existence
    claim is proved by a re-checked z3 model (and cvc5 not saying unsat), refuted by two unsat."""
    if q.vacuity.get("z3") == UNSAT:
        return "vacuous"
    if q.vacuity.get("z3") != SAT:
        return "unknown"
    got = set(q.answers.values())
    if SAT in got and UNSAT in got:
        return "disagree"
    both_unsat = got == {UNSAT}
    z3_model = q.answers.get("z3") == SAT and q.model is not None
    if q.kind == "exists":
        return "proved" if z3_model else ("refuted" if both_unsat else "unknown")
    return "proved" if both_unsat else ("refuted" if z3_model else "unknown")
