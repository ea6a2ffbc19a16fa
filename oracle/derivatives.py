"""Derivation-independent derivatives: gradient, Jacobian, Hessian and the mixed block of a Hessian
of any mpmath function, by central differences at raised working precision.

These never use a paper's closed forms, so a wrong formula — in a paper or in a solver — is caught
by comparing against them (docs/development.md#independence).

**Method.**  Let ``T = mp.prec`` be the caller's precision (bits) and, per coordinate,
``σ_i = min(1, 2^⌊log2|x_i|⌋)`` (``σ_i = 1`` when ``x_i = 0``): a coordinate below 1 in size gets a
step relative to it (``x³`` at ``1e-300``), one above 1 an absolute step, so a large coordinate does
not smear a feature of scale 1 (``exp(x − 10⁴⁵)`` at ``10⁴⁵``) and mixed scales in one vector each get
their own step.  Steps are ``h_i = σ_i·2^-(T+16)``; the stencil points ``x ± h_i e_i (± h_j e_j)`` are
formed exactly (the precision is raised to hold them).  ``f`` is evaluated at a working precision
``wp`` raised with the function's magnitude: with ``F`` the largest ``|f|`` on the stencil, each value
is taken to carry an error of at most ``max(F·2^(24 − wp), 16·e·2^(p − wp))``, where ``e`` is the
measured difference of ``f`` at the first stencil point at the first-pass precision and at ``p`` =
that minus ``T`` bits (so precision that ``f`` loses internally to cancellation is measured, not
assumed away).  The first pass uses ``wp = Z + T + 48 − log2 σ_min`` bits for first derivatives and
``Z + 2T + 64 − 2 log2 σ_min`` for second ones (``Z`` below; the first derivatives of a Hessian's scale
check, below, are taken at the second ones' precision, from the same evaluations), at which the noise of every entry is
already under the zero floor, so an exact zero costs no second pass; when an entry's noise (that error
times the stencil's weights over its step product) exceeds its tolerance — a derivative small against
``F`` (``∂/∂x₂`` of ``½(x₁² + x₂²)`` at ``(10³⁰⁰, 1)``), or an ``f`` that measurably loses precision —
``wp`` is raised by the deficit and the entry recomputed; after a raise, two successive passes must
also agree to within the tolerance.

**Guarantee** (for ``f`` computed at the working precision it is called at, with rounding errors near
the stencil like the one measured): every entry ``D`` satisfies
``|D − ∂f| ≤ 2^-T·|∂f| + 2^-Z·F + E_trunc`` with ``Z = 2T + 256 + 2R`` (``R`` = the spread in bits
of the exponents of 1 and of the nonzero coordinates of ``x``; ``F`` is the largest ``|f|`` on the entry's
stencil points or, where ``f`` is exactly 0 at all of them — ``∂ log(exp(x₁))/∂x₂`` at ``x₁ = 0`` —,
``|f|`` at the point where its error was measured), where ``∂f`` is the exact first (second)
derivative and ``E_trunc`` the central-difference truncation error, ``h_i²/6·|∂_i³f|``
(``h_i²/12·|∂_i⁴f|`` on the diagonal, ``(h_i² + h_j²)/6`` times fourth derivatives off it) — negligible
unless ``f`` varies on a scale below ``2^-T/2·σ_i``.  So every entry has ``mp.dps`` significant digits
unless it is below the zero floor ``2^-Z·F`` (a derivative that small is returned as a number at
most that size), at any magnitude a float64 can hold (the exponent range of mpmath is unbounded, so
only precision is raised).  Tested in ``tests/oracle/test_derivatives.py`` against closed forms from
1e-300 to 1e300 and with mixed scales in one vector.  A claim judged by :func:`~oracle.decide_sign`
re-evaluates its derivatives at a doubled ``T``, hence with steps ``2^-T`` times smaller: a truncation error shows there as
disagreement between precisions.

**Scale check.**  Before the entries are computed, the step is checked against the scale on which ``f``
varies: along every coordinate the first derivative (and, for Hessians, the second) at steps ``h_i``
must agree, within the entry's tolerance, with the one at steps ``h_i·2^-RESOLVE_BITS``; where they do
not (``sin(x/10⁻⁶⁰)`` at 0, whose scale is below the step), all steps are shrunk by 2^-s for s = 8, 16,
32, … (the working precision raised with them) until two successive steps agree, and up to
``s = MAX_SHIFT_FACTOR·T`` bits; beyond, :class:`~oracle.UndecidableError`.  Where the first check
passes, the entries are those of the unshrunk steps.

**Raises:** ``ValueError`` naming the argument when ``x`` (or ``y``) is not a non-empty column of
finite reals (NaN, ±inf, ``mpc``, complex and non-numbers are refused), when ``f`` is not callable
or returns anything but a finite real (a finite real column, for :func:`jacobian`) on the stencil;
:class:`~oracle.UndecidableError` when successive passes at raised precision keep disagreeing beyond
the tolerance (``f`` loses precision erratically) until ``MAX_WP_FACTOR·T + 2Z`` working bits, and
when no step down to ``2^-(MAX_SHIFT_FACTOR·T)`` times the first resolves the scale of ``f``.
"""

from __future__ import annotations

import mpmath
from mpmath import mp
from mpmath.libmp import from_man_exp, mpf_add

from .precision import UndecidableError, check_mp

__all__ = ["CACHE_SIZE", "MAX_PREC_FACTOR", "MAX_SHIFT_FACTOR", "MAX_WP_FACTOR", "NOISE_GUARD", "RESOLVE_BITS",
           "RESOLVE_MARGIN", "STEP_GUARD", "ZERO_BITS", "cached_at_point", "cross_hessian", "gradient", "hessian",
           "jacobian", "resolved"]

#: bits by which a step lies below the caller's precision relative to its coordinate: h_i = σ_i·2^-(T+STEP_GUARD).
STEP_GUARD = 16
#: bits of the working precision that ``f`` may lose to its own rounding (the noise model).
NOISE_GUARD = 24
#: a derivative below the zero floor 2^-Z·F, Z = 2T + ZERO_BITS + 2R (F = max |f| on the stencil, R the
#: spread in bits of the exponents of 1 and of the point's nonzero coordinates) is returned as a number of
#: at most that size; the 2R term resolves p'(x) of a cubic at 1e±300 and ½(x₁² + x₂²) at (1e300, 1e-300).
ZERO_BITS = 256
#: the working precision is never raised beyond MAX_WP_FACTOR·T + 2·(ZERO_BITS + 2R) bits (then UndecidableError).
MAX_WP_FACTOR = 16
_PASSES = 6
#: the scale check compares derivatives at steps h and h·2^-RESOLVE_BITS.
RESOLVE_BITS = 8
#: steps are shrunk by at most 2^-(MAX_SHIFT_FACTOR·T) to resolve the scale of f (then UndecidableError).
MAX_SHIFT_FACTOR = 4


def _point(x, name):
    if isinstance(x, mpmath.matrix):
        check_mp(x, name)
        if x.cols != 1 or x.rows == 0:
            raise ValueError(f"{name} must be a non-empty column vector, got {x.rows}x{x.cols}")
        return [x[i] for i in range(x.rows)]
    try:
        values = list(x)
    except TypeError:
        raise ValueError(f"{name} must be an n×1 mp.matrix or a sequence of reals, got {type(x).__name__}") from None
    if not values:
        raise ValueError(f"{name} must not be empty")
    return [check_mp(v, f"{name}[{i}]") for i, v in enumerate(values)]


def _scale_exp(v) -> int:
    """e with σ = 2^e = min(1, 2^⌊log2|v|⌋) (σ = 1 for v = 0)."""
    _, man, exp, bc = v._mpf_
    return min(exp + bc - 1, 0) if man else 0


class _Stencil:
    """Evaluations of ``f`` at exact points x + Σ k_i h_i e_i, cached per (precision, offsets)."""

    def __init__(self, f, pt, target, vector, shift=0):
        if not callable(f):
            raise ValueError(f"f={f!r} must be callable")
        self.f, self.pt, self.target, self.vector, self.shift = f, pt, target, vector, shift
        self.sexp = [_scale_exp(v) for v in pt]
        self.hexp = [e - target - STEP_GUARD - shift for e in self.sexp]
        self.cache = {}
        self.rows = None
        self.measured = self.measured_at = None
        exps = [0] + [v._mpf_[2] + v._mpf_[3] for v in pt if v]
        self.spread = max(exps) - min(exps)  # R: exponents of the nonzero coordinates and of 1
        self.zero_bits = 2 * target + ZERO_BITS + 2 * self.spread  # Z
        # first-pass precisions at which the noise of any entry is already under the zero floor
        low = shift - min(self.sexp)
        self.wp1 = self.zero_bits + target + STEP_GUARD + NOISE_GUARD + low + 8
        self.wp2 = self.zero_bits + 2 * (target + STEP_GUARD + low) + NOISE_GUARD + 8

    def coords(self, offsets):
        out = [v._mpf_ for v in self.pt]
        for i, k in offsets:
            out[i] = mpf_add(out[i], from_man_exp(k, self.hexp[i]), 0)
        return out

    def value(self, offsets, wp):
        key = (wp, offsets)
        if key not in self.cache:
            coords = self.coords(offsets)
            bits = max(c[3] for c in coords)
            with mp.workprec(max(wp, bits + 2)):
                out = self.f(mp.matrix([mp.make_mpf(c) for c in coords]))
                self.cache[key] = self._check(out, offsets)
        return self.cache[key]

    def _check(self, out, offsets):
        where = "x" + "".join(f" {'+' if k > 0 else '-'} {abs(k)}·h{i}·e{i}" for i, k in offsets)
        if self.vector:
            if not isinstance(out, mpmath.matrix) or out.cols != 1:
                raise ValueError(f"F must return a column mp.matrix, got {type(out).__name__} at {where}")
            check_mp(out, f"F({where})")
            if self.rows is None:
                self.rows = out.rows
            elif out.rows != self.rows:
                raise ValueError(f"F returned {out.rows} rows at {where}, {self.rows} elsewhere")
            return [+out[r] for r in range(out.rows)]
        if isinstance(out, mpmath.matrix):
            if out.rows * out.cols != 1:
                raise ValueError(f"f must return a real number, got a {out.rows}x{out.cols} matrix at {where}")
            out = out[0]
        return [+check_mp(out, f"f({where})")]

    def measure_error(self, offsets, wp):
        """The measured rounding error of f at the stencil point ``offsets`` at ``wp − T`` bits (per
        component) and that precision: f evaluated there at ``wp`` (needed anyway) and at ``wp − T``;
        their difference shows precision that f loses internally (cancellation) beyond its magnitude."""
        if self.measured is None:
            lo = wp - self.target
            hi_v, lo_v = self.value(offsets, wp), self.value(offsets, lo)
            with mp.workprec(wp):
                self.measured = ([abs(a - b) for a, b in zip(hi_v, lo_v)], lo)
            self.measured_at = (offsets, wp)
        return self.measured

    def measured_scale(self, r):
        """max |f_r| at the point where the error was measured, at both precisions: nonzero wherever that
        error is (the zero floor of an entry whose stencil values are all exactly 0)."""
        offsets, wp = self.measured_at
        return max(abs(self.value(offsets, wp)[r]), abs(self.value(offsets, wp - self.target)[r]))

    def combine(self, terms, wp, step_exp):
        """Σ coef·f(point) / 2^step_exp at ``wp``, with the magnitude F and the rounding noise bound:
        each value is taken to be off by max(F·2^(NOISE_GUARD − wp), 16·e·2^(p − wp)), where e is the
        error of f measured at p bits (:meth:`measure_error`)."""
        values = [(c, self.value(off, wp)) for c, off in terms]
        errors, at = self.measured
        m = len(values[0][1])
        with mp.workprec(wp):
            sums = [mp.ldexp(mp.fsum(c * v[r] for c, v in values), -step_exp) for r in range(m)]
            mags = [max(abs(v[r]) for _, v in values) for r in range(m)]
            weight = sum(abs(c) for c, _ in values)
            noise = [mp.ldexp(weight * max(mp.ldexp(F, NOISE_GUARD - wp), mp.ldexp(e, 4 + at - wp)), -step_exp)
                     for F, e in zip(mags, errors)]
        return sums, mags, noise


def _entry(st: _Stencil, terms, step_exp, wp0):
    """One derivative (a list over F's components), raising precision until it meets its tolerance.

    The first pass is accepted when its noise bound is under the tolerance.  Once precision had to be
    raised, the noise model was not enough on its own: a pass is accepted only when it also agrees with
    the previous one to within the tolerance (else it is repeated at a higher precision), so an ``f``
    whose rounding error does not shrink as modelled is resolved or refused, never guessed.
    """
    T = st.target
    zero_bits = st.zero_bits
    cap = MAX_WP_FACTOR * T + 2 * zero_bits
    wp, prev = wp0, None
    st.measure_error(terms[0][1], wp0)
    for _ in range(_PASSES):
        sums, mags, noise = st.combine(terms, wp, step_exp)
        need, tols = 0, []
        for r, (d, F, nz) in enumerate(zip(sums, mags, noise)):
            if not F:  # f ≡ 0 on this entry's stencil: the floor is relative to |f| where its error was measured
                F = st.measured_scale(r)
            tol = max(mp.ldexp(abs(d), -T - 4), mp.ldexp(F, -zero_bits))
            tols.append(tol)
            if nz > tol:
                need = max(need, int(mp.log(nz / tol, 2)) + 8)
            if prev is not None and abs(d - prev[r]) > 2 * tol:
                # the error of the previous pass is about the disagreement; its decay with precision is
                # what the noise model got wrong, so assume only half the modelled rate
                need = max(need, 32, 2 * int(mp.log(abs(d - prev[r]) / tol, 2)) + 8)
        if need == 0:
            st.tols = tols
            return sums
        prev, wp = sums, wp + need
        if wp > cap:
            break
    raise UndecidableError(f"a derivative of f could not be resolved to {T} bits below {cap} working bits "
                           f"(successive precisions disagree: f loses precision erratically)")


def _first(st, i, wp=None):
    terms = ((1, ((i, 1),)), (-1, ((i, -1),)))
    return _entry(st, terms, st.hexp[i] + 1, st.wp1 if wp is None else wp)


def _second(st, i, j):
    if i == j:
        terms = ((1, ((i, 1),)), (-2, ()), (1, ((i, -1),)))
        return _entry(st, terms, 2 * st.hexp[i], st.wp2)
    terms = ((1, ((i, 1), (j, 1))), (-1, ((i, 1), (j, -1))), (-1, ((i, -1), (j, 1))), (1, ((i, -1), (j, -1))))
    return _entry(st, terms, st.hexp[i] + st.hexp[j] + 2, st.wp2)


def _agree(st, fine, probes) -> bool:
    """Whether every probe (a function of a stencil giving one derivative) agrees on ``st`` and on ``fine``
    (steps 2^-RESOLVE_BITS times smaller) to within twice the larger of their tolerances."""
    for probe in probes:
        coarse = probe(st)
        tol_c = st.tols
        values = probe(fine)
        for a, b, t1, t2 in zip(coarse, values, tol_c, fine.tols):
            if abs(a - b) > 2 * max(t1, t2):
                return False
    return True


def _resolved(f, pt, vector, second=False) -> _Stencil:
    """A stencil whose steps resolve the scale of ``f`` (module docstring, "Scale check"): the first
    (and with ``second`` the diagonal second) derivative along every coordinate agree at steps h and
    h·2^-RESOLVE_BITS; the steps shrink by 2^-s, s = 8, 16, 32, …, until they do."""
    T = mp.prec
    st, shift = _Stencil(f, pt, T, vector), 0
    # a Hessian's scale check takes its first derivatives at the second ones' precision: the points
    # x ± h_i e_i are then evaluated once for both probes (and for the Hessian's diagonal)
    probes = [lambda s, i=i: _first(s, i, s.wp2 if second else None) for i in range(len(pt))]
    if second:
        probes += [lambda s, i=i: _second(s, i, i) for i in range(len(pt))]
    while True:
        fine = _Stencil(f, pt, T, vector, shift + RESOLVE_BITS)
        if _agree(st, fine, probes):
            return st
        shift = max(RESOLVE_BITS, 2 * shift)
        if shift > MAX_SHIFT_FACTOR * T:
            raise UndecidableError(f"the steps cannot resolve the scale of f: its derivatives at steps h and "
                                   f"h·2^-{RESOLVE_BITS} still disagree after shrinking the steps by 2^-{shift // 2} "
                                   f"(f varies on a scale below the step, or is not differentiable there)")
        st = _Stencil(f, pt, T, vector, shift)


def _result(rows):
    """Round entries computed at raised precision to the caller's precision."""
    return mp.matrix([[+v for v in row] for row in rows])


def gradient(f, x):
    """∇f(x) for ``f``: n×1 ``mp.matrix`` → ``mpf``; returns an n×1 ``mp.matrix`` (module docstring:
    ``mp.dps`` digits per entry above the zero floor, any magnitude)."""
    st = _resolved(f, _point(x, "x"), vector=False)
    return _result([[_first(st, i)[0]] for i in range(len(st.pt))])


def jacobian(F, x):
    """Jacobian of ``F``: n×1 ``mp.matrix`` → m×1 ``mp.matrix``; returns m×n (one pair of evaluations
    of ``F`` per column; each component has its own magnitude and zero floor)."""
    st = _resolved(F, _point(x, "x"), vector=True)
    cols = [_first(st, i) for i in range(len(st.pt))]
    return _result([[cols[i][r] for i in range(len(cols))] for r in range(st.rows)])


def hessian(f, x):
    """∇²f(x) for ``f``: n×1 ``mp.matrix`` → ``mpf``; returns a symmetric n×n ``mp.matrix``."""
    st = _resolved(f, _point(x, "x"), vector=False, second=True)
    n = len(st.pt)
    H = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            H[i][j] = H[j][i] = _second(st, i, j)[0]
    return _result(H)


def cross_hessian(f, x, y):
    """The block ∂²f/∂x∂yᵀ (k×m) of the Hessian of ``f(x, y)`` (x: k×1, y: m×1 ``mp.matrix``),
    without the x–x and y–y blocks (k·m mixed derivatives instead of (k+m)(k+m+1)/2)."""
    px, py = _point(x, "x"), _point(y, "y")
    if not callable(f):
        raise ValueError(f"f={f!r} must be callable")
    k, m = len(px), len(py)
    st = _resolved(lambda w: f(mp.matrix([w[i] for i in range(k)]), mp.matrix([w[k + j] for j in range(m)])),
                   px + py, vector=False, second=True)
    return _result([[_second(st, a, k + b)[0] for b in range(m)] for a in range(k)])


#: results :func:`cached_at_point` keeps per function (the most recently used).
CACHE_SIZE = 32


def _exact_key(value):
    """A hashable key equal for two arguments exactly when they are equal values of the same kind."""
    if isinstance(value, mpmath.matrix):
        return ("matrix", value.rows, value.cols, tuple(value[i, j]._mpf_ if isinstance(value[i, j], mpmath.mpf)
                                                        else ("other", repr(value[i, j]))
                                                        for i in range(value.rows) for j in range(value.cols)))
    if isinstance(value, mpmath.mpf):
        return ("mpf", value._mpf_)
    if isinstance(value, float):
        return ("float", value.hex())
    if value is None or isinstance(value, (str, int)):
        return (type(value).__name__, value)
    raise TypeError(f"no exact key for {type(value).__name__}")


def _copied(result):
    if isinstance(result, mpmath.matrix):
        return result.copy()
    if isinstance(result, tuple):
        return tuple(_copied(r) for r in result)
    return result


def cached_at_point(fn):
    """``fn`` (an oracle function of mpmath values, numbers and strings whose result depends only on them and
    on ``mp.prec``: the resolved derivatives of a loss at a point, a minimiser) remembering its last
    :data:`CACHE_SIZE` results, keyed by the exact values of its arguments and the working precision.  A judge
    that evaluates the same derivative twice at one precision (the two sides of a claim that share it, the
    re-evaluation of the decided sides at the precision that decided them) computes it once; a cached result
    is returned as a copy, and arguments without an exact key (or calls that raise) are not cached."""
    cache: dict = {}

    def wrapper(*args, **kwargs):
        try:
            key = (mp.prec, tuple(_exact_key(a) for a in args),
                   tuple(sorted((k, _exact_key(v)) for k, v in kwargs.items())))
        except TypeError:
            return fn(*args, **kwargs)
        if key in cache:
            cache[key] = cache.pop(key)  # most recently used last
            return _copied(cache[key])
        result = fn(*args, **kwargs)
        cache[key] = _copied(result)
        if len(cache) > CACHE_SIZE:
            del cache[next(iter(cache))]
        return result

    wrapper.__name__, wrapper.__qualname__, wrapper.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    wrapper.__module__, wrapper.__wrapped__ = fn.__module__, fn
    return wrapper


#: :func:`resolved` raises the caller's precision T at most to MAX_PREC_FACTOR·T (then UndecidableError).
MAX_PREC_FACTOR = 8
#: bits by which the zero floor must lie below the accuracy 2^-T·max|block| of a block :func:`resolved` accepts.
RESOLVE_MARGIN = 8


def resolved(f, x, blocks_of, accuracy=None):
    """Derivatives ``blocks_of(f, x)`` (a list of ``mp.matrix`` blocks of first or second derivatives of ``f``
    at ``x``, computed by this module's functions) of a function ``f`` ≥ 0, each block resolved to the caller's
    precision T relative to its own largest entry, and with ``accuracy`` (a positive number) to that absolute
    accuracy per entry.

    This module guarantees T bits per entry only above the zero floor 2^-Z·F, Z ≥ 2T + ZERO_BITS, F the largest
    |f| on the stencil (≤ 2·f(x) for an f ≥ 0 at steps 2^-(T+16) that move it by far less).  A loss of 5e299
    whose curvature in some directions is 1 (paper 003's L_half at B = 1e150) put that floor near 1e120, and
    H_yy = 1 came back as 0 while H_xx, of entries near 1e150, was right.  Here the precision is raised until
    the floor lies 2^-RESOLVE_MARGIN below 2^-T·max|block| for every block, and, for a block whose entries are
    all 0, until it is the floor of an f of 1 at T bits, 2^-(2T + ZERO_BITS) (the absolute accuracy of an
    all-zero answer), and below ``accuracy`` when given (an entry far smaller than its block's largest is not
    resolved by the relative rule; a judge with an entrywise tolerance asks for it), up to MAX_PREC_FACTOR·T
    bits; beyond, :class:`~oracle.UndecidableError`.  Entries are returned at T bits.

    **Raises:** ``ValueError`` for a non-positive ``accuracy``; :class:`~oracle.UndecidableError` as above.
    """
    if accuracy is not None:
        accuracy = check_mp(accuracy, "accuracy")
        if isinstance(accuracy, mpmath.matrix) or accuracy <= 0:
            raise ValueError(f"accuracy={accuracy} must be a number > 0")
    T = mp.prec
    prec = T
    while True:
        with mp.workprec(prec):
            blocks = blocks_of(f, x)
            F = 2 * abs(f(x))
        tops = [max(abs(H[i, j]) for i in range(H.rows) for j in range(H.cols)) for H in blocks]
        floor = mp.ldexp(F, -2 * prec - ZERO_BITS)
        need = prec
        for top in tops:
            goal = mp.ldexp(top, -T - RESOLVE_MARGIN) if top else mp.ldexp(1, -2 * T - ZERO_BITS)
            goal = goal if accuracy is None else min(goal, accuracy)
            if floor > goal:  # the floor falls by 2^-2 per bit of precision
                need = max(need, prec + int(mp.log(floor / goal, 2) / 2) + 16)
        if need == prec:
            with mp.workprec(T):
                return [+H for H in blocks]
        if need > MAX_PREC_FACTOR * T:
            raise UndecidableError(f"derivatives of a function of {mp.nstr(F / 2, 3)} are not resolved below "
                                   f"{MAX_PREC_FACTOR * T} bits (largest entries {[mp.nstr(t, 3) for t in tops]})")
        prec = need
