#!/usr/bin/env bash
# The GPU figures of issue 26 item 3, for a session with a GPU: run from the repository root,
#
#     benchmarks/gpu_figures.sh PART [OUT]   PART: device | compare | tests | scaling | verify | all
#
# OUT: the second argument, else $OUT (the lent device machine's result folder), else output/gpu_figures.
#
# Each part fits one call of at most 10 minutes (run them one by one where device time is short):
#   device   what JAX sees (nvidia-smi, jax.devices()), 10 s
#   compare  benchmarks/compare.py --backend jax: W1, W2 (M = 10^6, L = 1000) and W3 (M = 10^4, L = 500; SGLD, SGLD-CV,
#            SVRG-LD) of the workbench's JAX backend against blackjax and SGMCMCJax on the same device, float64; the
#            `jax_figure` lines hold every rate, ratio and target (W1, W2 >= 8 G chain-steps/s; W3 >= 100 M/s)
#   tests    the JAX backend's law tests (tests/test_jax_backend.py, fast subset) on the GPU
#   scaling  benchmarks/scaling.py: the numpy simulator's threads curve 1, 2, 4, ... up to the CPU count (W1, W2, W3;
#            issue 26 item 2's 16-core figures)
#   verify   python -m verify --backend jax --chains 1000000 (target: under 10 minutes), timed; the report lists which
#            runs fell back to numpy (claim notes starting with "backend:")
# Python: $PY (default python3), with the project installed and jax's CUDA build (pip install -e '.[bench]' and
# 'jax[cuda12]'). Every part writes OUT/<part>.txt; the figures for the README are the `jax_figure` lines of
# compare.txt and the `elapsed` line of verify.txt.
set -u
PART=${1:-all}
OUT=${2:-${OUT:-output/gpu_figures}}
PY=${PY:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's code, whatever is installed
mkdir -p "$OUT"

device() {
    { nvidia-smi || echo "nvidia-smi: not found"
      $PY -c "import jax; print('jax', jax.__version__, jax.default_backend(), jax.devices())"
    } > "$OUT/device.txt" 2>&1
    cat "$OUT/device.txt"
}

compare() {
    timeout 580 $PY benchmarks/compare.py --backend jax --repeats 2 --budget 20 > "$OUT/compare.txt" 2>&1
    echo "exit $?" >> "$OUT/compare.txt"
    grep -E "^(backend|jax_figure|min_ratio)" "$OUT/compare.txt"
}

tests() {
    timeout 580 $PY -m pytest tests/test_jax_backend.py -m "not slow" -q -p no:cacheprovider --durations=10 \
        > "$OUT/tests.txt" 2>&1
    echo "exit $?" >> "$OUT/tests.txt"
    tail -15 "$OUT/tests.txt"
}

scaling() {
    timeout 580 $PY benchmarks/scaling.py > "$OUT/scaling.txt" 2>&1
    echo "exit $?" >> "$OUT/scaling.txt"
    tail -20 "$OUT/scaling.txt"
}

verify() {
    local t0=$(date +%s)
    timeout 590 $PY -m verify --backend jax --chains 1000000 --no-figures --no-progress --out "$OUT/verify" \
        > "$OUT/verify.txt" 2>&1
    local rc=$?
    echo "exit $rc elapsed $(( $(date +%s) - t0 )) s (timeout 590 s: exit 124 means over the 10-minute target)" \
        >> "$OUT/verify.txt"
    grep -c '"backend: ' "$OUT/verify/results.json" 2>/dev/null | sed 's/^/claims with runs on numpy: /' \
        >> "$OUT/verify.txt"
    tail -5 "$OUT/verify.txt"
}

case "$PART" in
    device|compare|tests|scaling|verify) "$PART" ;;
    all) device; compare; tests; scaling; verify ;;
    *) echo "usage: $0 device|compare|tests|scaling|verify|all [OUT]" >&2; exit 2 ;;
esac
