"""Explicit 8-lane vector code (LLVM IR through numba intrinsics) for the logistic-regression minibatch gradients.

Why by hand: numba switches LLVM's SLP vectorizer off (it miscompiled, numba PR 8852) and without fast-math its
loop vectorizer leaves reductions scalar, so the dot products z^T theta ran one multiply-add at a time, and
``np.exp`` in a loop is a scalar libm call (numba has no SVML here). These intrinsics state the vector operations
in the IR: ``<8 x double>`` loads, multiplies and adds, fixed shuffle trees and a polynomial e^x. LLVM splits each
8-lane operation into the widest vectors the CPU has (one AVX-512 register, two AVX2, four SSE2). Each lane is the
same IEEE operation either way, with no reassociation and no fused multiply-add, so the results are the same to
the last bit on every CPU, for any thread count.

Layout: ``Z`` is the data (N, dp), C-contiguous, padded with zero columns to dp = 8 nb (:func:`padded`); a row is
addressed by its element offset ``rows[j] = i_j * dp``; theta is padded to dp with zeros (the zero products add
exact zeros). The fixed summation orders (the "workbench order", new, documented here once):

* z^T theta: lane l accumulates z_k theta_k over k = l, l + 8, l + 16, ... in that order; the 8 lanes are added as
  ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)); eight rows are reduced at once by one shuffle transpose.
* sum_j w_j z_j: two partial sums, over even j and over odd j (each in increasing j), added at the end.
* sigma(-s) = 1/(1 + e^s): with u = e^{-|s|} (never overflows), sigma(-s) = u/(1 + u) for s >= 0 and
  1/(1 + u) for s < 0. e^x = 2^k p(r), x = k ln 2 + r (Cody-Waite, |r| <= ln2/2), p the degree-13 Taylor
  polynomial (truncation < 5e-18 relative) by Estrin's scheme; 2^k as two exact powers of two, so u underflows
  gracefully. Accuracy: within 3 ulp of the correctly rounded sigma (tests/test_kernels.py, against mpmath).
  NaN in, NaN out.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 8
_F64 = ir.DoubleType()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V8 = ir.VectorType(_F64, LANES)
_VI64 = ir.VectorType(_I64, LANES)

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of ln 2: k * _LN2_HI is exact for |k| < 2^11
_LN2_LO = 1.90821492927058770002e-10
_SHIFT = 6755399441055744.0  # 1.5 * 2^52: x + _SHIFT rounds x to an integer held in the low mantissa bits
_SHIFT_BITS = int(np.float64(_SHIFT).view(np.int64))
_X_MIN = -746.0  # e^-746 < 2^-1075 rounds to 0: u = 0 beyond, exactly as the true value rounds
_TAYLOR = [1.0 / float(np.prod(np.arange(1, i + 1, dtype=np.float64))) for i in range(14)]  # 1/i!, i = 0..13


#: Byte alignment of the padded data: a row of 8 nb doubles then spans exactly nb cache lines of 64 bytes
#: (numpy aligns to 16 only; unaligned rows touch one more line each, 12% slower at W3's sizes).
ALIGN = 64


def padded(Z: np.ndarray) -> np.ndarray:
    """Z (N, d) with zero columns appended to a multiple of 8: the layout the kernels read, (N, 8 ceil(d/8)),
    C-contiguous, its data starting on an ALIGN-byte boundary."""
    N, d = Z.shape
    dp = LANES * -(-d // LANES)
    nbytes = N * dp * 8
    buf = np.zeros(nbytes + ALIGN, dtype=np.uint8)
    start = (-buf.ctypes.data) % ALIGN
    out = buf[start : start + nbytes].view(np.float64).reshape(N, dp)
    out[:, :d] = Z
    return out


# ----------------------------------------------------------------------------------------------------- IR helpers


def _const(x: float) -> ir.Constant:
    return ir.Constant(_V8, [float(x)] * LANES)


def _shuffle(b: ir.IRBuilder, x, y, mask: list[int]):
    return b.shuffle_vector(x, y, ir.Constant(ir.VectorType(_I32, len(mask)), mask))


def _data(context, builder, ty, value):
    """The data pointer of a numba array argument."""
    return context.make_array(ty)(context, builder, value).data


def _length(context, builder, ty, value):
    return builder.extract_value(context.make_array(ty)(context, builder, value).shape, 0)


def _load8(b: ir.IRBuilder, base, offset):
    return b.load(b.bitcast(b.gep(base, [offset]), _V8.as_pointer()), align=8)


def _store8(b: ir.IRBuilder, value, base, offset) -> None:
    b.store(value, b.bitcast(b.gep(base, [offset]), _V8.as_pointer()), align=8)


def _splat(b: ir.IRBuilder, x):
    v = b.insert_element(ir.Constant(_V8, ir.Undefined), x, ir.Constant(_I32, 0))
    return _shuffle(b, v, v, [0] * LANES)


def _row_products(b: ir.IRBuilder, Z, offset, thetas: list) -> object:
    """Lane partial sums of z^T theta for the row at ``offset``: lane l = sum over k = l (mod 8), in order of k."""
    acc = b.fmul(_load8(b, Z, offset), thetas[0])
    for blk in range(1, len(thetas)):
        acc = b.fadd(acc, b.fmul(_load8(b, Z, b.add(offset, ir.Constant(_I64, LANES * blk))), thetas[blk]))
    return acc


def _transpose_reduce(b: ir.IRBuilder, accs: list) -> object:
    """Eight lane vectors (one per row) -> the vector of their eight sums ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7))."""
    s1 = [b.fadd(_shuffle(b, accs[2 * i], accs[2 * i + 1], [0, 1, 2, 3, 8, 9, 10, 11]),
                 _shuffle(b, accs[2 * i], accs[2 * i + 1], [4, 5, 6, 7, 12, 13, 14, 15])) for i in range(4)]
    s2 = [b.fadd(_shuffle(b, s1[2 * i], s1[2 * i + 1], [0, 1, 4, 5, 8, 9, 12, 13]),
                 _shuffle(b, s1[2 * i], s1[2 * i + 1], [2, 3, 6, 7, 10, 11, 14, 15])) for i in range(2)]
    return b.fadd(_shuffle(b, s2[0], s2[1], [0, 2, 4, 6, 8, 10, 12, 14]),
                  _shuffle(b, s2[0], s2[1], [1, 3, 5, 7, 9, 11, 13, 15]))


def _exp_nonpositive(b: ir.IRBuilder, x):
    """e^x lane-wise for x <= 0 (x >= _X_MIN after clamping): 2^k p(r), Estrin's scheme for p."""
    x = b.select(b.fcmp_ordered("<", x, _const(_X_MIN)), _const(_X_MIN), x)
    t = b.fadd(b.fmul(x, _const(_LOG2E)), _const(_SHIFT))
    k = b.fsub(t, _const(_SHIFT))
    r = b.fsub(b.fsub(x, b.fmul(k, _const(_LN2_HI))), b.fmul(k, _const(_LN2_LO)))
    c = _TAYLOR
    q = [b.fadd(_const(c[2 * i]), b.fmul(_const(c[2 * i + 1]), r)) for i in range(7)]
    r2 = b.fmul(r, r)
    u = [b.fadd(q[0], b.fmul(q[1], r2)), b.fadd(q[2], b.fmul(q[3], r2)), b.fadd(q[4], b.fmul(q[5], r2)), q[6]]
    r4 = b.fmul(r2, r2)
    p = b.fadd(b.fadd(u[0], b.fmul(u[1], r4)), b.fmul(b.fadd(u[2], b.fmul(u[3], r4)), b.fmul(r4, r4)))
    # k = bits(t) - bits(SHIFT) in [-1077, 0]; 2^k = 2^(k - h) 2^h with h = k >> 1: both factors are normal numbers
    kk = b.sub(b.bitcast(t, _VI64), ir.Constant(_VI64, [_SHIFT_BITS] * LANES))
    h = b.ashr(kk, ir.Constant(_VI64, [1] * LANES))
    bias = ir.Constant(_VI64, [1023] * LANES)
    fifty_two = ir.Constant(_VI64, [52] * LANES)
    two_h = b.bitcast(b.shl(b.add(h, bias), fifty_two), _V8)
    two_rest = b.bitcast(b.shl(b.add(b.sub(kk, h), bias), fifty_two), _V8)
    return b.fmul(b.fmul(p, two_rest), two_h)


def _sigmoid_neg(b: ir.IRBuilder, s):
    """sigma(-s) = 1/(1 + e^s) lane-wise, overflow-free: u = e^{-|s|}; u/(1+u) for s >= 0, 1/(1+u) for s < 0."""
    neg_abs = b.select(b.fcmp_ordered(">=", s, _const(0.0)), b.fsub(_const(0.0), s), s)
    u = _exp_nonpositive(b, neg_abs)
    num = b.select(b.fcmp_ordered(">=", s, _const(0.0)), u, _const(1.0))
    return b.fdiv(num, b.fadd(_const(1.0), u))


def _literal(nb) -> int | None:
    """The block count from its compile-time form: a tuple of nb zeros (see :func:`blocks`) or an int literal."""
    if isinstance(nb, types.UniTuple):
        return nb.count
    return nb.literal_value if isinstance(nb, types.IntegerLiteral) else None


def blocks(dp: int) -> tuple[int, ...]:
    """The block count of a padded width dp as the kernels take it: a tuple of dp/8 zeros. Its numba type,
    UniTuple(int64, nb), carries nb, so the dispatcher picks (and caches) one compiled kernel per width without
    numba's literal-argument machinery, which cost 25 ms per call."""
    return (0,) * (dp // LANES)

#: Rows ahead of the current group of eight whose cache lines the weight pass asks for (a hint: it changes no
#: result). Random rows of Z miss the L1/L2 caches once Z outgrows them (W3: N = 10^4 rows of 192 bytes); asking
#: two groups ahead took the W3 gradient kernel from 0.70 to 0.59 ms per step on one core (measured on the
#: 2-core development machine, 64-byte aligned Z).
PREFETCH_AHEAD = 16


def _prefetch_rows(b: ir.IRBuilder, Z, rows, j0, last, NB: int) -> None:
    """``llvm.prefetch`` (read, keep in all cache levels) of the NB lines-of-8 of each row at positions
    j0 + PREFETCH_AHEAD + q, q < 8, clamped to the last row (rows past the end are never read)."""
    ptr_t = ir.IntType(8).as_pointer()
    fn = b.module.globals.get("llvm.prefetch.p0i8")
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(ir.VoidType(), [ptr_t, _I32, _I32, _I32]),
                         name="llvm.prefetch.p0i8")
    for q in range(LANES):
        j = b.add(j0, ir.Constant(_I64, PREFETCH_AHEAD + q))
        j = b.select(b.icmp_signed(">", j, last), last, j)
        off = b.load(b.gep(rows, [j]))
        for blk in range(NB):
            p = b.bitcast(b.gep(Z, [b.add(off, ir.Constant(_I64, LANES * blk))]), ptr_t)
            b.call(fn, [p, ir.Constant(_I32, 0), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])


# ----------------------------------------------------------------------------------------------------- intrinsics


def _weights_codegen(NB: int, with_hat: bool):
    """Two passes over the groups of eight rows: the dot products z^T theta (the only pass that reads Z; the rows
    prefetched two groups ahead), stored in w (and z^T theta_hat in s_hat), then sigma(-s) in place. The same
    operations as one fused pass, so the same bits, but each loop holds fewer vectors in registers: the fused loop
    spilled and shuffled registers (one call at W3's sizes on one core: 0.59 -> 0.52 ms)."""
    def codegen(context, builder, signature, args):
        tys = signature.args
        Z = _data(context, builder, tys[0], args[0])
        rows = _data(context, builder, tys[1], args[1])
        th = _data(context, builder, tys[2], args[2])
        k = 3
        if with_hat:
            th_hat = _data(context, builder, tys[3], args[3])
            s_hat = _data(context, builder, tys[5], args[5])
            k = 4
        w = _data(context, builder, tys[k], args[k])
        n = _length(context, builder, tys[k], args[k])
        thetas = [_load8(builder, th, ir.Constant(_I64, LANES * blk)) for blk in range(NB)]
        hats = [_load8(builder, th_hat, ir.Constant(_I64, LANES * blk)) for blk in range(NB)] if with_hat else None
        groups = builder.sdiv(n, ir.Constant(_I64, LANES))
        last = builder.sub(n, ir.Constant(_I64, 1))
        with cgutils.for_range(builder, groups, intp=_I64) as loop:
            j0 = builder.mul(loop.index, ir.Constant(_I64, LANES))
            _prefetch_rows(builder, Z, rows, j0, last, NB)
            offs = [builder.load(builder.gep(rows, [builder.add(j0, ir.Constant(_I64, q))])) for q in range(LANES)]
            _store8(builder, _transpose_reduce(builder, [_row_products(builder, Z, o, thetas) for o in offs]), w, j0)
            if with_hat:
                _store8(builder, _transpose_reduce(builder, [_row_products(builder, Z, o, hats) for o in offs]),
                        s_hat, j0)
        with cgutils.for_range(builder, groups, intp=_I64) as loop:
            j0 = builder.mul(loop.index, ir.Constant(_I64, LANES))
            sig = _sigmoid_neg(builder, _load8(builder, w, j0))
            if with_hat:
                sig = builder.fsub(sig, _sigmoid_neg(builder, _load8(builder, s_hat, j0)))
            _store8(builder, sig, w, j0)
        return context.get_dummy_value()
    return codegen


@intrinsic
def weights_rows(typingctx, Z, rows, theta, w, nb):
    """w[j] = sigma(-z_j^T theta), z_j the row of Z at element offset rows[j]; len(w) a multiple of 8 (rows too),
    theta padded to 8 nb; nb the number of 8-column blocks, as :func:`blocks` gives it (compile-time)."""
    NB = _literal(nb)
    if NB is None:
        return None
    return types.void(Z, rows, theta, w, nb), _weights_codegen(NB, False)


@intrinsic
def weights_diff_rows(typingctx, Z, rows, theta, theta_hat, w, s_hat, nb):
    """w[j] = sigma(-z_j^T theta) - sigma(-z_j^T theta_hat), each row read once (as :func:`weights_rows`); s_hat:
    scratch of len(w) (left holding z_j^T theta_hat)."""
    NB = _literal(nb)
    if NB is None:
        return None
    return types.void(Z, rows, theta, theta_hat, w, s_hat, nb), _weights_codegen(NB, True)


@intrinsic
def accumulate_rows(typingctx, acc, Z, rows, w, n, nb):
    """acc[0:8 nb] = sum_{j < n} w[j] z_j: partial sums over even and over odd j (increasing j), added at the end."""
    NB = _literal(nb)
    if NB is None:
        return None

    def codegen(context, builder, signature, args):
        tys = signature.args
        out = _data(context, builder, tys[0], args[0])
        Z = _data(context, builder, tys[1], args[1])
        rows = _data(context, builder, tys[2], args[2])
        w = _data(context, builder, tys[3], args[3])
        count = args[4]
        zero = ir.Constant(_V8, [0.0] * LANES)
        parts = [[cgutils.alloca_once_value(builder, zero) for _ in range(NB)] for _ in range(2)]

        def add_row(j, part):
            off = builder.load(builder.gep(rows, [j]))
            wj = _splat(builder, builder.load(builder.gep(w, [j])))
            for blk in range(NB):
                z = _load8(builder, Z, builder.add(off, ir.Constant(_I64, LANES * blk)))
                builder.store(builder.fadd(builder.load(part[blk]), builder.fmul(wj, z)), part[blk])

        pairs = builder.sdiv(count, ir.Constant(_I64, 2))
        with cgutils.for_range(builder, pairs, intp=_I64) as loop:
            j = builder.mul(loop.index, ir.Constant(_I64, 2))
            add_row(j, parts[0])
            add_row(builder.add(j, ir.Constant(_I64, 1)), parts[1])
        with builder.if_then(builder.icmp_signed("!=", builder.mul(pairs, ir.Constant(_I64, 2)), count)):
            add_row(builder.sub(count, ir.Constant(_I64, 1)), parts[0])
        for blk in range(NB):
            total = builder.fadd(builder.load(parts[0][blk]), builder.load(parts[1][blk]))
            _store8(builder, total, out, ir.Constant(_I64, LANES * blk))
        return context.get_dummy_value()

    return types.void(acc, Z, rows, w, types.intp, nb), codegen


__all__ = ["LANES", "accumulate_rows", "blocks", "padded", "weights_diff_rows", "weights_rows"]
