"""A softmax-regression implementation whose iteration costs n²·d² operations: its
``softmax_iteration_flops`` must make the linear-time claim softmax_regression.thm9.1.time FAIL
under ``validate`` (the claim is judged on this module's counts, not on the project's solver)."""


def softmax_iteration_flops(n, d, *, eps0=0.01, delta=0.01):
    return float(n * n * d * d)
